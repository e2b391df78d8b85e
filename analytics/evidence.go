package analytics

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"slices"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// EvidenceRow is one receipt an evidence pack carries: a failing one
// (verdict not PASS), one a finding row names (flagged), or a chain
// neighbour of either, with its line as read and its chain links.
type EvidenceRow struct {
	LoadedReceipt
	Role         string // "failing", "flagged" or "neighbour"
	PreviousHash string // the chain hash it names
	ChainHash    string // what a successor names
	// Findings are the finding rows of its day that name it.
	Findings []table.NamedRow
	// Missing says why Raw is nil: the line was left in its archive
	// file, which cannot be read now.
	Missing string
}

// Evidence gathers the receipts an evidence pack of the days from to to
// (YYYY-MM-DD, inclusive) carries: every receipt not PASS, every
// receipt a finding row of its day names (with those rows), and the chain neighbours of
// each (those the database holds). Each comes with its line: from the
// database, or read from its archive file (a line that cannot be read is
// kept without it, Missing saying why). Rows are by day, source and line;
// days are the days of the range the database holds receipts on.
func (db *DB) Evidence(ctx context.Context, from, to string) (rows []EvidenceRow, days []string, err error) {
	q := db.sql
	dr, err := q.QueryContext(ctx, `SELECT DISTINCT CAST(day AS VARCHAR) FROM receipts
		WHERE day BETWEEN CAST($1 AS DATE) AND CAST($2 AS DATE) ORDER BY 1`, from, to)
	if err != nil {
		return nil, nil, &dberr.IOError{Op: "query days", Err: err}
	}
	for dr.Next() {
		var d string
		if err := dr.Scan(&d); err != nil {
			dr.Close()
			return nil, nil, &dberr.IOError{Op: "query days", Err: err}
		}
		days = append(days, d)
	}
	dr.Close()

	type key struct {
		source string
		line   int64
	}
	picked := map[key]*EvidenceRow{}
	var order []key
	add := func(r StoredReceipt, role string) *EvidenceRow {
		k := key{r.Source, r.Line}
		if e, ok := picked[k]; ok {
			return e
		}
		e := &EvidenceRow{Role: role, LoadedReceipt: LoadedReceipt{Source: r.Source, Line: r.Line, Verdict: r.Verdict,
			Reasons: r.Reasons, Day: r.Day, ActionID: r.ActionID, Trust: r.TrustSHA256, File: r.FileSHA256}}
		raw, _, err := r.Bytes(ctx, "", false)
		if err != nil {
			e.Missing = err.Error()
		} else {
			e.Raw = raw
		}
		picked[k] = e
		order = append(order, k)
		return e
	}
	failing, err := storedReceipts(ctx, q, `WHERE day BETWEEN CAST(? AS DATE) AND CAST(? AS DATE) AND verdict <> 'PASS' ORDER BY day, source, line`, from, to)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range failing {
		add(r, "failing")
	}
	for _, day := range days {
		for _, name := range queries.Findings() {
			t, err := runQuery(ctx, q, name, day)
			if err != nil {
				return nil, nil, err
			}
			is, il := t.Col("source"), t.Col("line")
			if is < 0 || il < 0 {
				continue
			}
			for _, row := range t.Rows {
				line, ok := row[il].(int64)
				if !ok {
					continue
				}
				rs, err := receiptsAt(ctx, q, table.Text(row[is]), line)
				if err != nil {
					return nil, nil, err
				}
				if len(rs) == 0 {
					continue
				}
				e := add(rs[0], "flagged")
				var b bytes.Buffer
				one := &table.Table{Name: t.Name, Columns: t.Columns, Rows: [][]any{row}}
				if err := one.WriteJSONL(&b); err != nil {
					return nil, nil, err
				}
				e.Findings = append(e.Findings, table.NamedRow{Query: name, Row: bytes.TrimSuffix(b.Bytes(), []byte("\n"))})
			}
		}
	}
	// Chain links, then neighbours of the failing and flagged.
	links := func(e *EvidenceRow) error {
		return q.QueryRowContext(ctx, `SELECT coalesce(previous_hash, ''), coalesce(chain_hash, '') FROM receipts
			WHERE source = ? AND line = ? AND file_sha256 = ? LIMIT 1`, e.Source, e.Line, e.File).Scan(&e.PreviousHash, &e.ChainHash)
	}
	for _, k := range slices.Clone(order) {
		e := picked[k]
		if err := links(e); err != nil && err != sql.ErrNoRows {
			return nil, nil, &dberr.IOError{Op: "query chain", Err: err}
		}
		preds, succs, err := neighbours(ctx, q, e.PreviousHash, e.ChainHash)
		if err != nil {
			return nil, nil, err
		}
		for _, n := range append(preds, succs...) {
			if _, ok := picked[key{n.Source, n.Line}]; ok {
				continue
			}
			rs, err := receiptsAt(ctx, q, n.Source, n.Line)
			if err != nil {
				return nil, nil, err
			}
			if len(rs) > 0 {
				ne := add(rs[0], "neighbour")
				if err := links(ne); err != nil && err != sql.ErrNoRows {
					return nil, nil, &dberr.IOError{Op: "query chain", Err: err}
				}
			}
		}
	}
	for _, k := range order {
		rows = append(rows, *picked[k])
	}
	slices.SortFunc(rows, func(a, b EvidenceRow) int {
		return cmp.Or(cmp.Compare(a.Day, b.Day), cmp.Compare(a.Source, b.Source), cmp.Compare(a.Line, b.Line))
	})
	return rows, days, nil
}

// ReportDirs are the directories the last report of each of days was
// written to (report_runs), by day; a day never reported has none.
func (db *DB) ReportDirs(ctx context.Context, days []string) (map[string]string, error) {
	out := map[string]string{}
	for _, d := range days {
		var dir sql.NullString
		err := db.sql.QueryRowContext(ctx, `SELECT dir FROM report_runs WHERE day = CAST(? AS DATE) ORDER BY generated_at DESC LIMIT 1`, d).Scan(&dir)
		if err == sql.ErrNoRows {
			continue
		}
		if err != nil {
			return nil, &dberr.IOError{Op: "query report_runs", Err: err}
		}
		if dir.Valid {
			out[d] = dir.String
		}
	}
	return out, nil
}
