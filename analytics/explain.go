package analytics

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// LoadedReceipt is one receipt row of an audit database, as verify
// explain --db shows it.
type LoadedReceipt struct {
	Source   string
	Line     int64
	Verdict  string
	Reasons  string // comma-separated
	Day      string // YYYY-MM-DD
	Raw      []byte // the line exactly as read
	ActionID string
	Trust    string // trust_sha256: the material its verdict came from
	File     string // file_sha256: the content it was loaded from
}

// ReceiptsByAction returns the loaded receipts whose action_id is id, by
// day, source and line (a replayed action has several), each with its
// line: from the database, or read from its archive file when the
// database left it there (an *dberr.ArchiveError when that file has moved or
// changed).
func (db *DB) ReceiptsByAction(ctx context.Context, id string) ([]LoadedReceipt, error) {
	return receiptsByAction(ctx, db.sql, id)
}

// receiptsByAction is DB.ReceiptsByAction on any querier.
func receiptsByAction(ctx context.Context, q querier, id string) ([]LoadedReceipt, error) {
	rs, err := receiptsByActionID(ctx, q, id)
	if err != nil {
		return nil, err
	}
	return loadedReceipts(ctx, rs)
}

// LoadedReceiptsAt returns the receipts loaded from source at line (see
// ReceiptsAt), each with its line, as ReceiptsByAction.
func (db *DB) LoadedReceiptsAt(ctx context.Context, source string, line int64) ([]LoadedReceipt, error) {
	return loadedReceiptsAt(ctx, db.sql, source, line)
}

// loadedReceiptsAt is DB.LoadedReceiptsAt on any querier.
func loadedReceiptsAt(ctx context.Context, q querier, source string, line int64) ([]LoadedReceipt, error) {
	rs, err := receiptsAt(ctx, q, source, line)
	if err != nil {
		return nil, err
	}
	return loadedReceipts(ctx, rs)
}

// LoadedReceiptsByLine returns the receipts whose line's SHA-256 (hex)
// is sum (see ReceiptsByLineSHA256), as ReceiptsByAction.
func (db *DB) LoadedReceiptsByLine(ctx context.Context, sum string) ([]LoadedReceipt, error) {
	return loadedReceiptsByLine(ctx, db.sql, sum)
}

// loadedReceiptsByLine is DB.LoadedReceiptsByLine on any querier.
func loadedReceiptsByLine(ctx context.Context, q querier, sum string) ([]LoadedReceipt, error) {
	rs, err := receiptsByLineSHA256(ctx, q, sum)
	if err != nil {
		return nil, err
	}
	return loadedReceipts(ctx, rs)
}

func loadedReceipts(ctx context.Context, rs []StoredReceipt) ([]LoadedReceipt, error) {
	out := make([]LoadedReceipt, len(rs))
	for i, r := range rs {
		raw, _, err := r.Bytes(ctx, "", false)
		if err != nil {
			return nil, err
		}
		out[i] = LoadedReceipt{Source: r.Source, Line: r.Line, Verdict: r.Verdict, Reasons: r.Reasons, Day: r.Day, Raw: raw,
			ActionID: r.ActionID, Trust: r.TrustSHA256, File: r.FileSHA256}
	}
	return out, nil
}

// FindingsNaming runs the finding queries for day and returns the rows
// that name the receipt: by its action_id, or by its source and line; and
// the completeness verdict of its chain, by the chain scope digest scope
// (streamrun.ScopeDigest of its verify.Result.ScopeKey; "" for none),
// whatever day the chain's verdict is reported on.
func (db *DB) FindingsNaming(ctx context.Context, day, actionID, source string, line int64, scope string) ([]table.NamedRow, error) {
	return findingsNaming(ctx, db.sql, day, actionID, source, line, scope)
}

// findingsNaming is DB.FindingsNaming on any querier.
func findingsNaming(ctx context.Context, q querier, day, actionID, source string, line int64, scope string) ([]table.NamedRow, error) {
	var out []table.NamedRow
	for _, name := range queries.Findings() {
		qday := day
		if name == "completeness" {
			if scope == "" {
				continue
			}
			qday = "" // a chain's verdict is on its last receipt's day
		}
		t, err := runQuery(ctx, q, name, qday)
		if err != nil {
			return nil, err
		}
		ia, is, il, ic := t.Col("action_id"), t.Col("source"), t.Col("line"), t.Col("chain_scope")
		for _, row := range t.Rows {
			byID := ia >= 0 && actionID != "" && table.Text(row[ia]) == actionID
			byLine := is >= 0 && il >= 0 && table.Text(row[is]) == source && table.Text(row[il]) == table.Text(line)
			byChain := name == "completeness" && ic >= 0 && table.Text(row[ic]) == scope
			if !byID && !byLine && !byChain {
				continue
			}
			var b bytes.Buffer
			one := &table.Table{Name: t.Name, Columns: t.Columns, Rows: [][]any{row}}
			if err := one.WriteJSONL(&b); err != nil {
				return nil, err
			}
			out = append(out, table.NamedRow{Query: name, Row: bytes.TrimSuffix(b.Bytes(), []byte("\n"))})
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
	// The fields an Asqav chain is scoped by, to say which one a link
	// across chains crossed.
	IssuerID, OrgID, AgentID, SessionID string
}

// chainNeighbours finds the receipts whose chain hash is a given link
// (predecessors) or that link to a given hash (successors), in
// receiptOrder: the first successor listed is the first namer, the one
// the verdicts let link (the others are its forks), whatever day, file
// or line each was loaded from.
const chainNeighbours = `SELECT r.source, r.line, r.verdict, coalesce(r.action_id, ''),
	coalesce(r.issuer_id, ''), coalesce(r.org_id, ''), coalesce(r.agent_id, ''), coalesce(r.session_id, '')
FROM receipts r WHERE r.%s = ? ORDER BY ` + receiptOrder

// ChainNeighbours returns the loaded receipts whose chain_hash is prev
// (the predecessors of a receipt that links to prev) and those whose
// previous_hash is hash (its successors), each in the receipts' order
// (streamrun.Order: issue time, then line hash). An empty prev or hash finds
// none.
func (db *DB) ChainNeighbours(ctx context.Context, prev, hash string) (preds, succs []ChainRow, err error) {
	return neighbours(ctx, db.sql, prev, hash)
}

// neighbours is DB.ChainNeighbours on any querier.
func neighbours(ctx context.Context, q querier, prev, hash string) (preds, succs []ChainRow, err error) {
	find := func(col, v string) ([]ChainRow, error) {
		if v == "" {
			return nil, nil
		}
		rows, err := q.QueryContext(ctx, fmt.Sprintf(chainNeighbours, col), v)
		if err != nil {
			return nil, &dberr.IOError{Op: "query chain neighbours", Err: err}
		}
		defer rows.Close()
		var out []ChainRow
		for rows.Next() {
			var r ChainRow
			if err := rows.Scan(&r.Source, &r.Line, &r.Verdict, &r.ActionID, &r.IssuerID, &r.OrgID, &r.AgentID, &r.SessionID); err != nil {
				return nil, &dberr.IOError{Op: "query chain neighbours", Err: err}
			}
			out = append(out, r)
		}
		if err := rows.Err(); err != nil {
			return nil, &dberr.IOError{Op: "query chain neighbours", Err: err}
		}
		return out, nil
	}
	if preds, err = find("chain_hash", prev); err != nil {
		return nil, nil, err
	}
	succs, err = find("previous_hash", hash)
	return preds, succs, err
}

// RecordedTrust is the trust material a load recorded, and the time that
// load judged by.
type RecordedTrust struct {
	Trust
	// JudgedAt is At, or when the load judged by its clock, the time the
	// file was loaded: the closest instant to the one the load used.
	JudgedAt time.Time
}

// TrustOf returns the trust material recorded under trustSHA, with the
// judging time of the load of fileSHA when the material has none.
func (db *DB) TrustOf(ctx context.Context, trustSHA, fileSHA string) (*RecordedTrust, error) {
	return trustOf(ctx, db.sql, trustSHA, fileSHA)
}

// trustOf is DB.TrustOf on any querier.
func trustOf(ctx context.Context, q querier, trustSHA, fileSHA string) (*RecordedTrust, error) {
	if trustSHA == "" {
		return nil, dberr.ErrNoTrust
	}
	rows, err := q.QueryContext(ctx, `SELECT t.key_files, t.schema_files, t.judged_at, t.strict_schemas, t.tool_version,
		(SELECT max(loaded_at) FROM files WHERE file_sha256 = $2)
		FROM trust t WHERE t.trust_sha256 = $1`, trustSHA, fileSHA)
	if err != nil {
		return nil, &dberr.IOError{Op: "query trust", Err: err}
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, &dberr.IOError{Op: "query trust", Err: err}
		}
		return nil, dberr.ErrNoTrust
	}
	var keyFiles, schemaFiles string
	var at, loadedAt sql.NullTime
	var rt RecordedTrust
	if err := rows.Scan(&keyFiles, &schemaFiles, &at, &rt.StrictSchemas, &rt.ToolVersion, &loadedAt); err != nil {
		return nil, &dberr.IOError{Op: "query trust", Err: err}
	}
	if err := json.Unmarshal([]byte(keyFiles), &rt.Keys); err != nil {
		return nil, &dberr.IOError{Op: "query trust", Err: fmt.Errorf("key_files: %w", err)}
	}
	if err := json.Unmarshal([]byte(schemaFiles), &rt.Schemas); err != nil {
		return nil, &dberr.IOError{Op: "query trust", Err: fmt.Errorf("schema_files: %w", err)}
	}
	if at.Valid {
		rt.At = at.Time.UTC()
		rt.JudgedAt = rt.At
	} else if loadedAt.Valid {
		rt.JudgedAt = loadedAt.Time.UTC()
	}
	return &rt, rows.Err()
}
