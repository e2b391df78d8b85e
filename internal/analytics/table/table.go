// Package table is a query's result as the command shows it: the rows
// of normalized values, and their CSV, JSON Lines and aligned-text forms,
// each safe to show on a terminal or open in a spreadsheet whatever the
// receipts held.
package table

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/helpers/jsonenc"
	"github.com/receiptverify/verify/internal/helpers/termtext"
)

// Table is a query's result: column names and rows of normalized values.
// A value is nil (SQL NULL), string, int64, float64, bool, Date (a DATE
// column), time.Time (a TIMESTAMP, in UTC) or []string (a LIST, such as
// failures' reasons).
type Table struct {
	Name    string
	Columns []string
	Rows    [][]any
}

// NamedRow is one row of the finding query Query, as a JSON object: a
// finding that names a receipt (verify explain --db).
type NamedRow struct {
	Query string
	Row   []byte
}

// Date is a DATE value, YYYY-MM-DD.
type Date string

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
		line = append(t.AppendRowJSON(line[:0], row), '\n')
		bw.Write(line)
	}
	return bw.Flush()
}

// AppendRowJSON appends row as one JSON object, members in column order.
func (t *Table) AppendRowJSON(b []byte, row []any) []byte {
	b = append(b, '{')
	for i, v := range row {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonenc.AppendString(b, t.Columns[i], false)
		b = append(b, ':')
		b = AppendJSONValue(b, v)
	}
	return append(b, '}')
}

// AppendJSONValue appends v as encoding/json writes it without HTML
// escaping; strings are escaped by jsonenc, which a finding table's many
// rows made worth the while over json.Encoder.
func AppendJSONValue(b []byte, v any) []byte {
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

// RowSeverity is the severity column of r, a row of t, 0 if t has none.
func (t *Table) RowSeverity(r []any) severity.Severity {
	i := t.Col("severity")
	if i < 0 {
		return 0
	}
	s, _ := severity.Parse(Text(r[i]))
	return s
}

// KeepAtLeast drops the rows of t, a finding query's table, below min:
// what verify query --min-severity shows.
func (t *Table) KeepAtLeast(min severity.Severity) error {
	if t.Col("severity") < 0 {
		return fmt.Errorf("--min-severity: %s is not a finding query (no severity column)", t.Name)
	}
	t.Rows = slices.DeleteFunc(t.Rows, func(r []any) bool { return t.RowSeverity(r) < min })
	return nil
}
