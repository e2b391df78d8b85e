package analytics

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/cosefile"
	"github.com/receiptverify/verify/internal/helpers/ctxio"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
)

// StoredReceipt is one receipts row: where its line is, and the line
// itself when the database holds it.
type StoredReceipt struct {
	Source     string // the file's path as loaded
	FileSHA256 string
	Line       int64
	Offset     int64 // in the file's content (a gzip file's decompressed bytes); -1 when not recorded
	Length     int64
	LineSHA256 string // hex; empty when not recorded
	ActionID   string
	Verdict    string
	Reasons    string
	Day        string // YYYY-MM-DD
	Raw        []byte // nil when the line was left in the archive (RawPolicy)
	// TrustSHA256 names the trust material the verdict came from (the
	// trust table); empty for rows written before it was recorded.
	TrustSHA256 string
}

// storedReceiptSQL selects StoredReceipt's columns; a WHERE follows.
const storedReceiptSQL = `SELECT source, file_sha256, line, COALESCE(byte_offset, -1), COALESCE(byte_length, -1),
	COALESCE(line_sha256, ''), COALESCE(action_id, ''), verdict, array_to_string(reasons, ',') AS reasons, day, raw, COALESCE(trust_sha256, '') FROM receipts `

// ReceiptsAt returns the receipts loaded from source (as loaded, or the
// same path cleaned) at line: one per time that file's content was
// loaded under that name, usually one.
func (db *DB) ReceiptsAt(ctx context.Context, source string, line int64) ([]StoredReceipt, error) {
	return receiptsAt(ctx, db.sql, source, line)
}

// receiptsAt is DB.ReceiptsAt on any querier.
func receiptsAt(ctx context.Context, q querier, source string, line int64) ([]StoredReceipt, error) {
	return storedReceipts(ctx, q, "WHERE (source = ? OR source = ?) AND line = ? ORDER BY source, file_sha256",
		source, filepath.Clean(source), line)
}

// ReceiptsByActionID returns the receipts whose action_id is id, by day,
// source and line (a replayed action has several).
func (db *DB) ReceiptsByActionID(ctx context.Context, id string) ([]StoredReceipt, error) {
	return receiptsByActionID(ctx, db.sql, id)
}

// receiptsByActionID is DB.ReceiptsByActionID on any querier.
func receiptsByActionID(ctx context.Context, q querier, id string) ([]StoredReceipt, error) {
	return storedReceipts(ctx, q, "WHERE action_id = ? ORDER BY day, source, line", id)
}

// receiptsByLineSHA256 returns the receipts whose line's SHA-256 (hex) is
// sum, by source and line: where a line that another file re-delivered is
// stored.
func receiptsByLineSHA256(ctx context.Context, q querier, sum string) ([]StoredReceipt, error) {
	return storedReceipts(ctx, q, "WHERE line_sha256 = ? ORDER BY source, line", sum)
}

// Redelivered is how many lines the files loaded from source re-delivered
// (files.redelivered): lines stored already from another file, not
// stored again.
func (db *DB) Redelivered(ctx context.Context, source string) (int64, error) {
	return countRedelivered(ctx, db.sql, source)
}

// countRedelivered is DB.Redelivered on any querier.
func countRedelivered(ctx context.Context, q querier, source string) (int64, error) {
	rows, err := q.QueryContext(ctx, "SELECT COALESCE(sum(redelivered), 0) FROM files WHERE path = ? OR path = ?",
		source, filepath.Clean(source))
	if err != nil {
		return 0, &dberr.IOError{Op: "query files", Err: err}
	}
	defer rows.Close()
	var n int64
	for rows.Next() {
		if err := rows.Scan(&n); err != nil {
			return 0, &dberr.IOError{Op: "query files", Err: err}
		}
	}
	if err := rows.Err(); err != nil {
		return 0, &dberr.IOError{Op: "query files", Err: err}
	}
	return n, nil
}

func storedReceipts(ctx context.Context, q querier, where string, args ...any) ([]StoredReceipt, error) {
	rows, err := q.QueryContext(ctx, storedReceiptSQL+where, args...)
	if err != nil {
		return nil, &dberr.IOError{Op: "query receipts", Err: err}
	}
	defer rows.Close()
	var out []StoredReceipt
	for rows.Next() {
		var r StoredReceipt
		var day sql.NullTime
		var raw sql.NullString
		if err := rows.Scan(&r.Source, &r.FileSHA256, &r.Line, &r.Offset, &r.Length, &r.LineSHA256, &r.ActionID,
			&r.Verdict, &r.Reasons, &day, &raw, &r.TrustSHA256); err != nil {
			return nil, &dberr.IOError{Op: "query receipts", Err: err}
		}
		if day.Valid {
			r.Day = day.Time.UTC().Format(time.DateOnly)
		}
		if raw.Valid {
			r.Raw = []byte(raw.String)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "query receipts", Err: err}
	}
	return out, nil
}

// ArchivePath is where the archive file of r is looked for: its path as
// loaded, a relative one taken from root when root is not empty.
func (r *StoredReceipt) ArchivePath(root string) string {
	if root != "" && !filepath.IsAbs(r.Source) {
		return filepath.Join(root, r.Source)
	}
	return r.Source
}

// ReadArchive reads r's line from its archive file (ArchivePath) by its
// offset and checks it against the SHA-256 recorded at load. A gzip file
// (by its first bytes, as the load read it, whatever its name) is
// decompressed up to the line: its offset is in the decompressed bytes. The error is an
// *dberr.ArchiveError.
func (r *StoredReceipt) ReadArchive(ctx context.Context, root string) ([]byte, error) {
	path := r.ArchivePath(root)
	if r.Offset < 0 || r.LineSHA256 == "" {
		return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Err: errors.New("the database was written before rows recorded where their lines are")}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Err: err}
	}
	defer f.Close()
	content, gz, err := gunzip.Content(f, "", gunzip.Size(f))
	if err != nil {
		return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Changed: gz, Err: err}
	}
	src := content
	if gz {
		src = ctxio.Reader(ctx, content)
	}
	if cosefile.IsName(path) {
		// A .cose file was loaded as its receipt line: read it so again.
		line, err := cosefile.Line(src)
		if err != nil {
			return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Changed: true, Err: err}
		}
		src = bytes.NewReader(line)
	}
	b, err := newContentReader(src).read(lineLoc{r.Line, r.Offset, r.Length, r.LineSHA256})
	switch {
	case err == nil:
		return b, nil
	case errors.Is(err, fs.ErrPermission):
		return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Err: err}
	case errors.Is(err, context.Canceled):
		return nil, err
	}
	return nil, &dberr.ArchiveError{Path: path, Line: r.Line, Changed: true, Err: err}
}

// Bytes is r's line exactly as loaded: from the database when it holds
// it (and fromArchive is false), else from the archive file (ReadArchive).
// fromDB says which.
func (r *StoredReceipt) Bytes(ctx context.Context, root string, fromArchive bool) (b []byte, fromDB bool, err error) {
	if r.Raw != nil && !fromArchive {
		return r.Raw, true, nil
	}
	b, err = r.ReadArchive(ctx, root)
	return b, false, err
}
