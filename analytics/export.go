package analytics

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/helpers/swapdir"
)

// defaultMaxFileBytes is the size at which an export starts a table's next
// part file: large enough that a lake engine reads few files, small enough
// that a day of tens of millions of receipts is hundreds of files an engine
// reads in parallel, not one.
const defaultMaxFileBytes = 256 << 20

// ExportOptions tune an export.
type ExportOptions struct {
	// MaxFileBytes is the size past which a part file is closed and the
	// next begun (DuckDB's FILE_SIZE_BYTES): a file ends at the first row
	// group boundary at or past it, so it is at most about an eighth
	// larger (row groups are sized to an eighth of it, but hold at least
	// 2048 rows). 0 is DefaultMaxFileBytes.
	MaxFileBytes int64

	// sideTables, if not nil, are the side tables written (a
	// ReceiptTable's); nil writes every one.
	sideTables []string
}

// sideTables are the tables exported besides receipts: their order, and
// an estimate of a row's bytes for sizing row groups.
var sideTables = []struct{ table, order, width string }{
	{exportdir.Files, "path, file_sha256", "256"},
	{exportdir.Rejects, "source, file_sha256, line", "strlen(error) + COALESCE(strlen(raw), 0) + 128"},
	{exportdir.ExpectedTools, "server, tool_name, fingerprint", "strlen(server) + strlen(tool_name) + strlen(fingerprint)"},
	{exportdir.Trust, "trust_sha256", "strlen(key_files) + strlen(schema_files) + strlen(material) + 128"},
}

// receiptWidth estimates a receipts row's bytes: the raw line and about
// 512 bytes of the other columns.
const receiptWidth = "strlen(raw) + 512"

// ExportParquet writes the database as Parquet under dir in the layout
// above: the receipts one COPY per UTC day, so memory stays bounded by a
// day, and each side table one COPY. Each directory is written under a
// hidden temporary name beside it and then put in place of the old one
// (swapped atomically where the system can, renamed over otherwise), so a
// re-run replaces a day's files as a whole and a reader never sees half
// of them or two generations mixed. Partitions of days no longer in the
// database are removed (removeGoneDays). Rows are in (issued_at, source, file, line)
// order across a day's parts: DuckDB writes rotating files in order only
// with one thread, so the export runs with one. A database error (COPY
// included) is an *dberr.IOError, a directory that cannot be made a
// *dberr.WriteError.
//
// An export stopped by ctx (a signal) removes dir if it made it: a
// directory that did not exist before the run is not left half-filled.
func (db *DB) ExportParquet(ctx context.Context, dir string, opts ExportOptions) (sum *exportdir.Summary, err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if _, serr := os.Lstat(dir); errors.Is(serr, fs.ErrNotExist) {
		defer func() {
			if err != nil && ctx.Err() != nil {
				os.RemoveAll(dir)
			}
		}()
	}
	bound := opts.MaxFileBytes
	if bound <= 0 {
		bound = defaultMaxFileBytes
	}
	sum = &exportdir.Summary{Dir: dir}
	if err := os.MkdirAll(filepath.Join(dir, exportdir.Receipts), 0o755); err != nil {
		return nil, &dberr.WriteError{Path: dir, Err: err}
	}
	sum.Stale = staleLayout(dir)
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, &dberr.IOError{Op: "export", Path: db.path, Err: err}
	}
	defer conn.Close()
	dbErr := func(err error) error { return &dberr.IOError{Op: "export", Path: db.path, Err: err} }

	// threads is a setting of the database, not of the connection: put
	// back what it was.
	var threads int64
	if err := conn.QueryRowContext(ctx, "SELECT CAST(current_setting('threads') AS BIGINT)").Scan(&threads); err != nil {
		return nil, dbErr(err)
	}
	if _, err := conn.ExecContext(ctx, "SET threads = 1"); err != nil {
		return nil, dbErr(err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("SET threads = %d", threads))

	rows, err := conn.QueryContext(ctx, `SELECT day, COUNT(*), COALESCE(SUM(`+receiptWidth+`), 0) FROM receipts GROUP BY day ORDER BY day NULLS LAST`)
	if err != nil {
		return nil, dbErr(err)
	}
	var widths []int64
	for rows.Next() {
		var day *time.Time
		var n, width int64
		if err := rows.Scan(&day, &n, &width); err != nil {
			rows.Close()
			return nil, dbErr(err)
		}
		if day == nil {
			sum.Undated = n
			continue
		}
		sum.Days = append(sum.Days, exportdir.Day{Day: day.UTC().Format(time.DateOnly), Rows: n})
		widths = append(widths, width)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, dbErr(err)
	}

	receiptCols, err := exportColumns(ctx, conn, "receipts", "day")
	if err != nil {
		return nil, dbErr(err)
	}
	for i := range sum.Days {
		d := &sum.Days[i]
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		d.Path = filepath.Join(dir, exportdir.Receipts, "day="+d.Day)
		// d.Day was formatted from a DATE, so it is safe as a literal.
		q := fmt.Sprintf(`SELECT %s FROM receipts WHERE day = DATE '%s' ORDER BY issued_at NULLS LAST, source, file_sha256, line`,
			receiptCols, d.Day)
		if d.Parts, err = copyParts(ctx, conn, q, d.Path, bound, rowGroupRows(bound, widths[i], d.Rows)); err != nil {
			return sum, err
		}
	}
	if sum.Removed, sum.Kept, err = removeGoneDays(filepath.Join(dir, exportdir.Receipts), sum.Days); err != nil {
		return sum, &dberr.WriteError{Path: dir, Err: err}
	}
	for _, t := range sideTables {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		if opts.sideTables != nil && !slices.Contains(opts.sideTables, t.table) {
			continue
		}
		e := exportdir.Table{Table: t.table, Path: filepath.Join(dir, t.table)}
		var width sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT COUNT(*), SUM("+t.width+") FROM "+t.table).Scan(&e.Rows, &width); err != nil {
			return sum, dbErr(err)
		}
		cols, err := exportColumns(ctx, conn, t.table, "")
		if err != nil {
			return sum, dbErr(err)
		}
		q := "SELECT " + cols + " FROM " + t.table + " ORDER BY " + t.order
		if e.Parts, err = copyParts(ctx, conn, q, e.Path, bound, rowGroupRows(bound, width.Int64, e.Rows)); err != nil {
			return sum, err
		}
		sum.Tables = append(sum.Tables, e)
	}
	return sum, nil
}

// exportColumns is the select list that exports table: every column but
// except, in table order, a TIMESTAMP (the database keeps UTC wall
// times, as every connection's time zone is UTC) as the TIMESTAMP WITH
// TIME ZONE of the same instant, which Parquet marks isAdjustedToUTC.
func exportColumns(ctx context.Context, conn *sql.Conn, table, except string) (string, error) {
	rows, err := conn.QueryContext(ctx, `SELECT column_name, data_type FROM information_schema.columns
		WHERE table_schema = 'main' AND table_catalog = current_database() AND table_name = $1 ORDER BY ordinal_position`, table)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return "", err
		}
		q := `"` + name + `"`
		switch {
		case name == except:
		case typ == "TIMESTAMP":
			cols = append(cols, "CAST("+q+" AS TIMESTAMPTZ) AS "+q)
		default:
			cols = append(cols, q)
		}
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	if len(cols) == 0 {
		return "", fmt.Errorf("no table %s", table)
	}
	return strings.Join(cols, ", "), nil
}

// rowGroupRows is the rows per row group that keeps a row group near an
// eighth of bound, for a table of rows rows of about width bytes in all:
// a multiple of 2048 (DuckDB's vector, the least it writes) up to
// DuckDB's default of 122880.
func rowGroupRows(bound, width, rows int64) int64 {
	const vector, most = 2048, 122880
	if rows <= 0 || width <= 0 {
		return most
	}
	perRow := max(width/rows, 1)
	n := bound / 8 / perRow / vector * vector
	return min(max(n, vector), most)
}

// copyParts writes the rows of query into final as part-N.parquet files
// of about bound bytes and returns how many it wrote. They are written
// into a hidden directory beside final, then put in its place.
func copyParts(ctx context.Context, conn *sql.Conn, query, final string, bound, groupRows int64) (int, error) {
	parent, base := filepath.Dir(final), filepath.Base(final)
	tmp := filepath.Join(parent, "."+base+".tmp")
	if err := os.RemoveAll(tmp); err != nil {
		return 0, &dberr.WriteError{Path: tmp, Err: err}
	}
	stmt := fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd, FILE_SIZE_BYTES %d, ROW_GROUP_SIZE %d, FILENAME_PATTERN 'part-{i}')",
		query, sqltext.String(tmp), bound, groupRows)
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		os.RemoveAll(tmp)
		return 0, &dberr.IOError{Op: "export", Path: final, Err: err}
	}
	parts, err := filepath.Glob(filepath.Join(tmp, "part-*.parquet"))
	if err == nil {
		err = swapdir.Publish(tmp, final)
	}
	if err != nil {
		os.RemoveAll(tmp)
		return 0, &dberr.WriteError{Path: final, Err: err}
	}
	return len(parts), nil
}

// dayPartition is the name of a day's directory under receipts/, and
// partFile the name of a part file the export writes.
var (
	dayPartition = regexp.MustCompile(`^day=[0-9]{4}-[0-9]{2}-[0-9]{2}$`)
	partFile     = regexp.MustCompile(`^part-[0-9]+\.parquet$`)
)

// removeGoneDays removes the day partitions under receipts whose days are
// not among days: an earlier export's days that the database no longer
// holds. A directory holding anything but part files is kept, not
// touched: the export did not write it. Each is renamed to a hidden name
// first, so that a reader sees the day whole or not at all.
func removeGoneDays(receipts string, days []exportdir.Day) (removed, kept []string, err error) {
	ents, err := os.ReadDir(receipts)
	if err != nil {
		return nil, nil, err
	}
	have := make(map[string]bool, len(days))
	for _, d := range days {
		have["day="+d.Day] = true
	}
	for _, e := range ents {
		if !e.IsDir() || !dayPartition.MatchString(e.Name()) || have[e.Name()] {
			continue
		}
		path := filepath.Join(receipts, e.Name())
		files, err := os.ReadDir(path)
		if err != nil {
			return removed, kept, err
		}
		ours := true
		for _, f := range files {
			if !f.Type().IsRegular() || !partFile.MatchString(f.Name()) {
				ours = false
				break
			}
		}
		if !ours {
			kept = append(kept, path)
			continue
		}
		gone := filepath.Join(receipts, "."+e.Name()+".removed")
		if err := os.RemoveAll(gone); err != nil {
			return removed, kept, err
		}
		if err := os.Rename(path, gone); err != nil {
			return removed, kept, err
		}
		if err := os.RemoveAll(gone); err != nil {
			return removed, kept, err
		}
		removed = append(removed, path)
	}
	return removed, kept, nil
}

// staleLayout lists the files of the earlier layout in dir: a receipts
// file per day directory and one file per side table.
func staleLayout(dir string) []string {
	days, _ := filepath.Glob(filepath.Join(dir, "day=*", "receipts.parquet"))
	top, _ := filepath.Glob(filepath.Join(dir, "*.parquet"))
	return append(days, top...)
}
