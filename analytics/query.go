package analytics

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/receiptverify/verify/internal/dberr"
	"github.com/receiptverify/verify/internal/jsonenc"
	"github.com/receiptverify/verify/internal/termtext"
	"github.com/receiptverify/verify/queries"
)

// querier runs SQL: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// Table is a query's result: column names and rows of normalized values.
// A value is nil (SQL NULL), string, int64, float64, bool, Date (a DATE
// column), time.Time (a TIMESTAMP, in UTC) or []string (a LIST, such as
// failures' reasons).
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// Date is a DATE value, YYYY-MM-DD.
type Date string

// RunQuery runs the embedded query name for day (YYYY-MM-DD, or "" for
// the NULL day, which most queries read as "every day"). The day is bound
// as the file's single ? parameter (see package queries). A finding
// query's finding_key column comes back as finding_id (FindingID). A
// database that cannot be read is an *dberr.IOError.
func (db *DB) RunQuery(ctx context.Context, name, day string) (*Table, error) {
	return runQuery(ctx, db.sql, name, day)
}

// runQuery is DB.RunQuery on any querier.
func runQuery(ctx context.Context, q querier, name, day string) (*Table, error) {
	query, err := queries.Lookup(name)
	if err != nil {
		return nil, err
	}
	return runText(ctx, q, name, query.Text, day)
}

// runText runs a statement with one day parameter.
func runText(ctx context.Context, q querier, name, text, day string) (*Table, error) {
	var arg any // nil: NULL
	if day != "" {
		if _, err := queries.ParseDay(day); err != nil {
			return nil, err
		}
		arg = day
	}
	rows, err := q.QueryContext(ctx, text, arg)
	if err != nil {
		return nil, &dberr.IOError{Op: "query " + name, Err: err}
	}
	defer rows.Close()
	t, err := scanTable(name, rows)
	if err != nil {
		return nil, &dberr.IOError{Op: "query " + name, Err: err}
	}
	withFindingIDs(t)
	return t, nil
}

func scanTable(name string, rows *sql.Rows) (*Table, error) {
	sc, err := newRowScanner(name, rows)
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name, Columns: sc.columns}
	for {
		r, err := sc.next()
		if r == nil {
			return t, err
		}
		t.Rows = append(t.Rows, r)
	}
}

// rowScanner reads a query's rows one at a time as a Table holds them.
type rowScanner struct {
	rows    *sql.Rows
	types   []string
	columns []string
}

func newRowScanner(name string, rows *sql.Rows) (*rowScanner, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	sc := &rowScanner{rows: rows}
	for _, c := range cols {
		sc.columns = append(sc.columns, c.Name())
		sc.types = append(sc.types, c.DatabaseTypeName())
	}
	return sc, nil
}

// next is the next row, or nil at the end or on an error.
func (sc *rowScanner) next() ([]any, error) {
	if !sc.rows.Next() {
		return nil, sc.rows.Err()
	}
	vals := make([]any, len(sc.types))
	ptrs := make([]any, len(sc.types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := sc.rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	for i, v := range vals {
		vals[i] = normalize(v, sc.types[i])
	}
	return vals, nil
}

// normalize maps driver values onto the few types Table documents.
func normalize(v any, dbType string) any {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return v
	case []byte:
		return string(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= 1<<63-1 {
			return int64(x)
		}
		return strconv.FormatUint(x, 10)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case float32:
		return float64(x)
	case time.Time:
		if dbType == "DATE" {
			return Date(x.UTC().Format(time.DateOnly))
		}
		return x.UTC()
	case []any:
		list := make([]string, len(x))
		for i, e := range x {
			list[i] = Text(normalize(e, ""))
		}
		return list
	}
	return fmt.Sprint(v)
}

// Col returns the index of column name, or -1.
func (t *Table) Col(name string) int { return slices.Index(t.Columns, name) }

// timeLayout is RFC 3339 in UTC with a fixed six-digit fraction, so text
// order is time order.
const timeLayout = "2006-01-02T15:04:05.000000Z"

// Text is a value as CSV and the table format write it: "" for NULL,
// timestamps in RFC 3339 UTC, a list's items joined by commas.
func Text(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case Date:
		return string(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(timeLayout)
	case []string:
		return strings.Join(x, ",")
	}
	return fmt.Sprint(v)
}

// WriteCSV writes the table as RFC 4180 CSV with a header row. CSV is the
// spreadsheet format, and a spreadsheet runs a cell that begins with '=',
// '+', '-' or '@' (a tab or carriage return before one is an escape here,
// see below) as a formula:
// a text value from a receipt that begins so (a tool named
// "=HYPERLINK(...)") is written after a single quote, which spreadsheets
// show as text (CWE-1236). Numbers, dates and times are written as they
// are; the JSON Lines output keeps every value exact.
//
// Control characters, Unicode format characters (bidirectional
// overrides) and bytes that are not UTF-8 in a value are written as
// escapes (\x1b, \n, \u202e, \xff), as in the text output (termtext): a
// receipt cannot drive the terminal a CSV file is shown on, reorder what
// a spreadsheet shows, or start a record of its own. Records end in CRLF,
// as RFC 4180 asks.
func (t *Table) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var rec bytes.Buffer
	cw := csv.NewWriter(&rec) // "\n" record ends, replaced below
	writeRecord := func(fields []string) error {
		rec.Reset()
		if err := cw.Write(fields); err != nil {
			return err
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
		line := rec.Bytes()
		line = append(line[:len(line)-1], '\r', '\n')
		_, err := bw.Write(line)
		return err
	}
	if err := writeRecord(t.Columns); err != nil {
		return err
	}
	fields := make([]string, len(t.Columns))
	for _, row := range t.Rows {
		for i, v := range row {
			fields[i] = termtext.Escape(Text(v)) // a leading tab or CR is now "\t", "\r"
			if f := fields[i]; f != "" && strings.ContainsRune("=+-@", rune(f[0])) {
				switch v.(type) {
				case string, []string:
					fields[i] = "'" + f
				}
			}
		}
		if err := writeRecord(fields); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteJSONL writes one JSON object per row, members in column order:
// NULL as null, numbers as numbers, timestamps as RFC 3339 UTC strings,
// lists as arrays of strings.
func (t *Table) WriteJSONL(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var line []byte
	for _, row := range t.Rows {
		line = append(t.appendRowJSON(line[:0], row), '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// appendRowJSON appends row as one JSON object, members in column order.
func (t *Table) appendRowJSON(b []byte, row []any) []byte {
	b = append(b, '{')
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, t.Columns[i], false)
		b = append(b, ':')
		b = appendJSONValue(b, v)
	}
	return append(b, '}')
}

// appendJSONValue appends v as encoding/json writes it without HTML
// escaping; strings are escaped by jsonenc, which a finding table's many
// rows made worth the while over json.Encoder.
func appendJSONValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case int64, bool:
		return append(b, Text(x)...)
	case float64:
		j, err := json.Marshal(x)
		if err != nil { // NaN, Inf
			return jsonenc.AppendString(b, Text(x), false)
		}
		return append(b, j...)
	case []string:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonenc.AppendString(b, e, false)
		}
		return append(b, ']')
	}
	return jsonenc.AppendString(b, Text(v), false)
}

// WriteTable writes the table as aligned text columns for a terminal:
// a header row, then one line per row; NULL prints as an empty cell.
// Tabs and line breaks inside values are shown as spaces, and other
// characters a terminal would act on as escapes (termtext).
func (t *Table) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
	cells := make([]string, len(t.Columns))
	for _, row := range t.Rows {
		for i, v := range row {
			cells[i] = termtext.Escape(clean.Replace(Text(v)))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	return tw.Flush()
}
