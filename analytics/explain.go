package analytics

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"time"
)

// LoadedReceipt is one receipt row of an audit database, as verify
// explain --db shows it.
type LoadedReceipt struct {
	Source  string
	Line    int64
	Verdict string
	Reasons string // comma-separated
	Day     string // YYYY-MM-DD
	Raw     []byte // the line exactly as read
}

// receiptsByAction is the lookup of ReceiptsByAction. It takes an
// action_id rather than a day, so it is not one of queries/*.sql, which
// bind the day as their one parameter.
const receiptsByAction = `SELECT source, line, verdict, array_to_string(reasons, ',') AS reasons, day, raw
FROM receipts WHERE action_id = ? ORDER BY day, source, line`

// ReceiptsByAction returns the loaded receipts whose action_id is id, by
// day, source and line (a replayed action has several).
func ReceiptsByAction(ctx context.Context, q Querier, id string) ([]LoadedReceipt, error) {
	rows, err := q.QueryContext(ctx, receiptsByAction, id)
	if err != nil {
		return nil, &IOError{Op: "query receipts by action_id", Err: err}
	}
	defer rows.Close()
	var out []LoadedReceipt
	for rows.Next() {
		var (
			r   LoadedReceipt
			day sql.NullTime
			raw string
		)
		if err := rows.Scan(&r.Source, &r.Line, &r.Verdict, &r.Reasons, &day, &raw); err != nil {
			return nil, &IOError{Op: "query receipts by action_id", Err: err}
		}
		if day.Valid {
			r.Day = day.Time.UTC().Format(time.DateOnly)
		}
		r.Raw = []byte(raw)
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, &IOError{Op: "query receipts by action_id", Err: err}
	}
	return out, nil
}

// NamedFinding is one finding row that names a receipt, as JSON.
type NamedFinding struct {
	Finding string
	Row     []byte
}

// FindingsNaming runs the finding queries for day and returns the rows
// that name the receipt: by its action_id, or by its source and line.
func FindingsNaming(ctx context.Context, q Querier, day, actionID, source string, line int64) ([]NamedFinding, error) {
	var out []NamedFinding
	for _, name := range Findings {
		t, err := RunQuery(ctx, q, name, day)
		if err != nil {
			return nil, err
		}
		ia, is, il := t.Col("action_id"), t.Col("source"), t.Col("line")
		for _, row := range t.Rows {
			byID := ia >= 0 && actionID != "" && Text(row[ia]) == actionID
			byLine := is >= 0 && il >= 0 && Text(row[is]) == source && Text(row[il]) == Text(line)
			if !byID && !byLine {
				continue
			}
			var b bytes.Buffer
			one := &Table{Name: t.Name, Columns: t.Columns, Rows: [][]any{row}}
			if err := one.WriteJSONL(&b); err != nil {
				return nil, err
			}
			out = append(out, NamedFinding{Finding: name, Row: bytes.TrimSuffix(b.Bytes(), []byte("\n"))})
		}
	}
	return out, nil
}

// ChainRow is a loaded receipt next to another in a chain.
type ChainRow struct {
	Source   string
	Line     int64
	Verdict  string
	ActionID string
}

// chainNeighbours finds the receipts whose chain hash is a given link
// (predecessors) or that link to a given hash (successors).
const chainNeighbours = `SELECT source, line, verdict, coalesce(action_id, '')
FROM receipts WHERE %s = ? ORDER BY day, source, line`

// ChainNeighbours returns the loaded receipts whose chain_hash is prev
// (the predecessors of a receipt that links to prev) and those whose
// previous_hash is hash (its successors). An empty prev or hash finds
// none.
func ChainNeighbours(ctx context.Context, q Querier, prev, hash string) (preds, succs []ChainRow, err error) {
	find := func(col, v string) ([]ChainRow, error) {
		if v == "" {
			return nil, nil
		}
		rows, err := q.QueryContext(ctx, fmt.Sprintf(chainNeighbours, col), v)
		if err != nil {
			return nil, &IOError{Op: "query chain neighbours", Err: err}
		}
		defer rows.Close()
		var out []ChainRow
		for rows.Next() {
			var r ChainRow
			if err := rows.Scan(&r.Source, &r.Line, &r.Verdict, &r.ActionID); err != nil {
				return nil, &IOError{Op: "query chain neighbours", Err: err}
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return nil, &IOError{Op: "query chain neighbours", Err: err}
		}
		return out, nil
	}
	if preds, err = find("chain_hash", prev); err != nil {
		return nil, nil, err
	}
	succs, err = find("previous_hash", hash)
	return preds, succs, err
}
