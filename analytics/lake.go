package analytics

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/logfamily"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/toolschema"
)

// A ReceiptTable writes verified results as the tables of a Parquet export
// that the daily report reads (receipts, files, rejects, expected_tools
// and trust), without an audit database: the daily report of a sharded run,
// whose verdicts are final only once the run's chains and nonces are
// judged (internal/shard). Each row is made as a load makes it
// (appendReceiptRowAt, receiptInsert) and the files are written as
// ExportParquet writes them, so the columns, their types and the layout
// are the export's.
//
// What a ReceiptTable does not know is NULL: the line itself (raw) when
// the caller does not give it, and where it is in its file (byte_offset,
// byte_length, line_sha256) when the caller does not say. Its receipts
// are every result added: the caller leaves out what a load would not
// store (a line delivered again from another file, files.redelivered; the
// lines of a file it could not read to its end), and adds each file's
// files row (AddFile).
type ReceiptTable struct {
	db    *DB
	path  string
	dir   string // for the spools
	trust string // trust_sha256
	day   string // of undated receipts
	at    time.Time
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
	t := &ReceiptTable{db: db, path: path, dir: filepath.Dir(path), day: opts.At.UTC().Format(time.DateOnly), at: opts.At.UTC()}
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
// that content (byte_offset, byte_length, line_sha256), and raw, if not
// nil, the line itself. An unreadable line is not a receipt: it is a
// rejects row, as a load makes it.
func (t *ReceiptTable) Add(ctx context.Context, res *verify.Result, fileSHA256 string, line *streamrun.LineRef, raw []byte) error {
	if res.Verdict == verify.Unreadable {
		return t.addReject(ctx, res, fileSHA256, raw)
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
		if raw != nil {
			return appendReceiptRowAt(b, res, int64(res.Line), lineOf(raw), offset, true, deliveryFlags{})
		}
		return appendReceiptRowAt(b, res, int64(res.Line), kept, offset, false, deliveryFlags{})
	})
}

// addReject adds an unreadable line as a rejects row: its error, and the
// line itself when raw is not nil and is text.
func (t *ReceiptTable) addReject(ctx context.Context, res *verify.Result, fileSHA256 string, raw []byte) error {
	b := appendRejectRow(nil, res, raw)
	var row struct {
		Error string  `json:"error"`
		Raw   *string `json:"raw"`
	}
	if err := json.Unmarshal(b, &row); err != nil {
		return err
	}
	if _, err := t.db.sql.ExecContext(ctx, "INSERT INTO rejects (file_sha256, source, line, error, raw) VALUES ($1, $2, $3, $4, $5)",
		fileSHA256, res.Source, int64(res.Line), row.Error, row.Raw); err != nil {
		return &dberr.IOError{Op: "insert", Path: t.path, Err: err}
	}
	return nil
}

// LakeFile is one input of a ReceiptTable, as a load records it in its
// files row.
type LakeFile struct {
	Path    string // as given
	Size    int64  // as stored (gzip included)
	Content FileContent
	// Accepted and Rejected count its receipts and rejects rows;
	// Redelivered its receipts not stored as their lines were stored from
	// another file already, and RedeliveredDays their days.
	Accepted, Rejected, Redelivered int64
	RedeliveredDays                 []string
}

// AddFile adds f's files row, loaded at the run's clock.
func (t *ReceiptTable) AddFile(ctx context.Context, f LakeFile) error {
	days := slices.Sorted(slices.Values(f.RedeliveredDays))
	days = slices.Compact(days)
	c := f.Content
	_, err := t.db.sql.ExecContext(ctx, filesInsert, c.SHA256, f.Path, f.Size, c.Lines, f.Accepted, f.Rejected, t.at,
		c.Bytes, int64(1), "", c.Head, c.Unterminated, t.trust, f.Redelivered, strings.Join(days, ","), logfamily.Of(f.Path))
	if err != nil {
		return &dberr.IOError{Op: "insert", Path: t.path, Err: err}
	}
	return nil
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

// DayOf is the day of res's receipts row: the UTC day of its issued_at,
// or of the run's clock for a receipt without one.
func (t *ReceiptTable) DayOf(res *verify.Result) string {
	if at, ok := res.IssuedTime(); ok {
		return at.UTC().Format(time.DateOnly)
	}
	return t.day
}

// Rows is the number of receipts added.
func (t *ReceiptTable) Rows() int64 { return t.rows }

// Export writes the tables under dir in the export's layout (see
// ExportParquet): receipts/day=YYYY-MM-DD/part-N.parquet, files/,
// rejects/, expected_tools/ and trust/.
func (t *ReceiptTable) Export(ctx context.Context, dir string, opts ExportOptions) (*exportdir.Summary, error) {
	if t.sp != nil {
		if err := t.insert(ctx); err != nil {
			return nil, err
		}
	}
	opts.sideTables = []string{exportdir.Files, exportdir.Rejects, exportdir.ExpectedTools, exportdir.Trust}
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

// LakeTables are the tables a sharded run's folds write (ReceiptTable),
// which OpenLake reads in place of an audit database's.
func LakeTables() []string {
	return []string{exportdir.Receipts, exportdir.Files, exportdir.Rejects, exportdir.ExpectedTools, exportdir.Trust}
}

// OpenLake opens a private in-memory database in which each of
// LakeTables is a view over a sharded run's Parquet files: sources gives,
// for each, a DuckDB SELECT over its files (the receipts' with their day;
// "" for a table without files, left empty). The views have the audit
// database's columns, in its order and of its types, and the database's
// other tables are there, empty (nothing was loaded twice, no report
// recorded): the report and the queries run over it as over an audit
// database, by the same code. It is read-only: a report is not recorded
// in it.
func OpenLake(ctx context.Context, sources map[string]string) (*DB, error) {
	db, err := Open("")
	if err != nil {
		return nil, err
	}
	fail := func(op string, err error) (*DB, error) {
		db.Close()
		return nil, &dberr.IOError{Op: op, Path: "the lake", Err: err}
	}
	for _, t := range LakeTables() {
		src, ok := sources[t]
		if !ok {
			return fail("open", errors.New("no files of the "+t+" table"))
		}
		if src == "" {
			continue
		}
		rows, err := db.sql.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
			WHERE table_schema = 'main' AND table_name = $1 ORDER BY ordinal_position`, t)
		if err != nil {
			return fail("read schema", err)
		}
		var cols []string
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				rows.Close()
				return fail("read schema", err)
			}
			cols = append(cols, `CAST("`+name+`" AS `+typ+`) AS "`+name+`"`)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return fail("read schema", err)
		}
		for _, s := range []string{"DROP TABLE " + t, "CREATE VIEW " + t + " AS SELECT " + strings.Join(cols, ", ") + " FROM (" + src + ")"} {
			if _, err := db.sql.ExecContext(ctx, s); err != nil {
				return fail("open the "+t+" table", err)
			}
		}
	}
	db.readOnly = true
	return db, nil
}
