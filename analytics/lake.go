package analytics

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/toolschema"
)

// A ReceiptTable writes verified results as the tables of a Parquet export
// that the report's finding queries read (receipts, expected_tools and
// trust), without an audit database: the daily report of a sharded run,
// whose verdicts are final only once the run's chains and nonces are
// judged (internal/shard). Each row is made as a load makes it
// (appendReceiptRowAt, receiptInsert) and the files are written as
// ExportParquet writes them, so the columns, their types and the layout
// are the export's.
//
// What a ReceiptTable does not know is NULL: the line itself (raw), and
// where it is in its file (byte_offset, byte_length, line_sha256) when the
// caller does not say. Its receipts are every result added: the caller
// leaves out what a load would not store (a line delivered again from
// another file, files.redelivered; the lines of a file it could not read
// to its end).
type ReceiptTable struct {
	db    *DB
	path  string
	dir   string // for the spools
	trust string // trust_sha256
	day   string // of undated receipts
	sp    *spool
	sha   string // the file and source of the rows spooled
	src   string
	rows  int64
}

// ReceiptTableOptions are what a ReceiptTable records besides the results.
type ReceiptTableOptions struct {
	// Trust is the material the results were verified with: the trust
	// table's one row, and every receipt's trust_sha256.
	Trust Trust
	// Schemas are the expected tool schemas the verifier was given
	// (expected_tools); nil for none.
	Schemas *toolschema.Set
	// At is the run's clock (--at): the day of receipts without an
	// issued_at, as a load gives them its loaded_at.
	At time.Time
}

// spoolRows is how many bytes of rows a ReceiptTable spools before it
// inserts them.
const spoolRows = 64 << 20

// CreateReceiptTable starts a ReceiptTable in a new database file at path,
// which Close removes with its temporary files. The database is on disk:
// memory is DuckDB's limit, however many results are added.
func CreateReceiptTable(ctx context.Context, path string, opts ReceiptTableOptions) (*ReceiptTable, error) {
	if _, err := os.Lstat(path); err == nil {
		return nil, &dberr.WriteError{Path: path, Err: errors.New("exists: a receipts table starts in a new file")}
	}
	db, err := Open(path)
	if err != nil {
		return nil, err
	}
	t := &ReceiptTable{db: db, path: path, dir: filepath.Dir(path), day: opts.At.UTC().Format(time.DateOnly)}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		t.Close()
		return nil, &dberr.IOError{Op: "open", Path: path, Err: err}
	}
	defer conn.Close()
	if t.trust, err = recordTrust(ctx, conn, opts.Trust); err != nil {
		t.Close()
		return nil, &dberr.IOError{Op: "trust", Path: path, Err: err}
	}
	if opts.Schemas != nil {
		if err := addExpectedTools(ctx, conn, opts.Schemas); err != nil {
			t.Close()
			return nil, &dberr.IOError{Op: "expected tools", Path: path, Err: err}
		}
	}
	return t, nil
}

// Add adds res, read from the file whose content's SHA-256 is fileSHA256
// (hex), as a receipts row; line, if not nil, is where its line is in
// that content (byte_offset, byte_length, line_sha256). An unreadable
// line is not a receipt: it is left out, as a load puts it in rejects.
func (t *ReceiptTable) Add(ctx context.Context, res *verify.Result, fileSHA256 string, line *streamrun.LineRef) error {
	if res.Verdict == verify.Unreadable {
		return nil
	}
	if t.sp != nil && (fileSHA256 != t.sha || res.Source != t.src || t.sp.size >= spoolRows) {
		if err := t.insert(ctx); err != nil {
			return err
		}
	}
	if t.sp == nil {
		sp, err := newSpool(t.dir)
		if err != nil {
			return &dberr.WriteError{Path: t.dir, Err: err}
		}
		t.sp, t.sha, t.src = sp, fileSHA256, res.Source
	}
	t.rows++
	kept, offset := unknownLine, int64(-1)
	if line != nil {
		kept, offset = keptLine{length: line.Length, sum: line.SHA256}, line.Offset
	}
	return t.sp.add(func(b []byte) []byte {
		return appendReceiptRowAt(b, res, int64(res.Line), kept, offset, false, deliveryFlags{})
	})
}

// insert inserts the rows spooled.
func (t *ReceiptTable) insert(ctx context.Context) error {
	sp := t.sp
	t.sp = nil
	defer sp.remove()
	if err := sp.close(); err != nil {
		return &dberr.IOError{Op: "spool", Path: sp.path, Err: err}
	}
	if _, err := t.db.sql.ExecContext(ctx, receiptInsert+sp.read(receiptColumns), t.sha, t.src, t.day, t.trust); err != nil {
		return &dberr.IOError{Op: "insert", Path: t.path, Err: err}
	}
	return nil
}

// Rows is the number of receipts added.
func (t *ReceiptTable) Rows() int64 { return t.rows }

// Export writes the tables under dir in the export's layout (see
// ExportParquet): receipts/day=YYYY-MM-DD/part-N.parquet, expected_tools/
// and trust/.
func (t *ReceiptTable) Export(ctx context.Context, dir string, opts ExportOptions) (*exportdir.Summary, error) {
	if t.sp != nil {
		if err := t.insert(ctx); err != nil {
			return nil, err
		}
	}
	opts.sideTables = []string{exportdir.ExpectedTools, exportdir.Trust}
	return t.db.ExportParquet(ctx, dir, opts)
}

// Close closes the database and removes its file.
func (t *ReceiptTable) Close() error {
	if t.sp != nil {
		t.sp.remove()
		t.sp = nil
	}
	err := t.db.Close()
	for _, p := range []string{t.path, t.path + ".wal"} {
		if rerr := os.Remove(p); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	return err
}
