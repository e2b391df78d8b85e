package enginetest

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// hyparquetReader is the Node script that reads Parquet files with
// hyparquet, which shares no code with DuckDB.
const hyparquetReader = "testdata/hyparquet/read.mjs"

// hyElement is one element of a file's Parquet schema, as hyparquet reads
// it.
type hyElement struct {
	Name           string  `json:"name"`
	Type           *string `json:"type"`
	RepetitionType *string `json:"repetition_type"`
	ConvertedType  *string `json:"converted_type"`
	LogicalType    *struct {
		Type            string `json:"type"`
		IsAdjustedToUTC *bool  `json:"isAdjustedToUTC"`
		Unit            string `json:"unit"`
	} `json:"logical_type"`
	NumChildren int `json:"num_children"`
}

type hyFile struct {
	File   string      `json:"file"`
	Error  string      `json:"error"`
	Rows   int64       `json:"rows"`
	Schema []hyElement `json:"schema"`
	Data   [][]any     `json:"data"`
}

// readHyparquet reads files with hyparquet, one Node process for all.
func readHyparquet(t *testing.T, files []string) map[string]hyFile {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		absent(t, "hyparquet: node is not installed")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(hyparquetReader), "node_modules", "hyparquet")); err != nil {
		absent(t, "hyparquet: not installed in %s (npm install)", filepath.Dir(hyparquetReader))
	}
	out, stderr := runNode(t, node, hyparquetReader, map[string][]string{"files": files})
	got := map[string]hyFile{}
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	for dec.More() {
		var f hyFile
		if err := dec.Decode(&f); err != nil {
			t.Fatalf("hyparquet reader output: %v", err)
		}
		got[f.File] = f
	}
	if len(got) != len(files) {
		t.Fatalf("hyparquet read %d of %d files\n%s", len(got), len(files), stderr)
	}
	return got
}

// columns are the file's top-level columns: each with its element and,
// for a LIST, the element of its items.
type hyColumn struct {
	elem hyElement
	item *hyElement
}

func (f hyFile) columns(t *testing.T) ([]string, []hyColumn) {
	t.Helper()
	var names []string
	var cols []hyColumn
	i := 1
	var skip func() *hyElement // skips a subtree, returning its innermost leaf
	skip = func() *hyElement {
		e := f.Schema[i]
		i++
		if e.NumChildren == 0 {
			return &e
		}
		var leaf *hyElement
		for range e.NumChildren {
			leaf = skip()
		}
		return leaf
	}
	for i < len(f.Schema) {
		e := f.Schema[i]
		c := hyColumn{elem: e}
		leaf := skip()
		if e.NumChildren > 0 {
			c.item = leaf
		}
		names = append(names, e.Name)
		cols = append(cols, c)
	}
	return names, cols
}

// canonHy is the canonical form (see result) of a value hyparquet read.
func canonHy(t *testing.T, v any) string {
	switch x := v.(type) {
	case nil:
		return null
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case json.Number:
		return x.String()
	case []any:
		items := make([]string, len(x))
		for i, e := range x {
			items[i] = canonHy(t, e)
		}
		return canonList(items)
	case map[string]any:
		switch {
		case x["int"] != nil:
			return x["int"].(string)
		case x["ts_us"] != nil:
			us, err := strconv.ParseInt(x["ts_us"].(string), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return canonTime(time.UnixMicro(us))
		case x["days"] != nil:
			d, err := x["days"].(json.Number).Int64()
			if err != nil {
				t.Fatal(err)
			}
			return time.Unix(d*86400, 0).UTC().Format(time.DateOnly)
		}
	}
	t.Fatalf("hyparquet value %v (%T)", v, v)
	return ""
}

// exportFiles lists every Parquet file of an export, by table.
func exportFiles(t *testing.T, dir string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	for _, table := range []string{exportdir.Receipts, exportdir.Files, exportdir.Rejects, exportdir.ExpectedTools, exportdir.Trust} {
		files, err := filepath.Glob(filepath.FromSlash(exportdir.Glob(dir, table)))
		if err != nil || len(files) == 0 {
			t.Fatalf("%s: no files (%v)", exportdir.Glob(dir, table), err)
		}
		out[table] = files
	}
	return out
}

// utcTimestamps are the columns of each table that hold instants.
var utcTimestamps = map[string][]string{
	exportdir.Receipts: {"issued_at"},
	exportdir.Files:    {"loaded_at"},
	exportdir.Trust:    {"judged_at"},
}

// textLists are the columns of each table that hold lists of text.
var textLists = map[string][]string{
	exportdir.Receipts: {"reasons", "tool_servers"},
}

// checkReadBack reads every file of the export with hyparquet and
// compares it with DuckDB's reading of the same file: the columns, their
// logical types (every timestamp an instant, isAdjustedToUTC; the list
// columns LISTs of UTF-8 text) and every row. It returns the rows read
// per table.
func checkReadBack(t *testing.T, dir string) map[string]int64 {
	t.Helper()
	byTable := exportFiles(t, dir)
	var all []string
	for _, files := range byTable {
		all = append(all, files...)
	}
	hy := readHyparquet(t, all)
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	counts := map[string]int64{}
	for table, files := range byTable {
		for _, file := range files {
			f := hy[file]
			if f.Error != "" {
				t.Errorf("hyparquet cannot read %s: %s", file, f.Error)
				continue
			}
			names, cols := f.columns(t)
			for i, c := range cols {
				isTime := c.elem.LogicalType != nil && c.elem.LogicalType.Type == "TIMESTAMP" ||
					c.elem.ConvertedType != nil && strings.HasPrefix(*c.elem.ConvertedType, "TIMESTAMP")
				if isTime && (c.elem.LogicalType == nil || c.elem.LogicalType.IsAdjustedToUTC == nil || !*c.elem.LogicalType.IsAdjustedToUTC) {
					t.Errorf("%s: %s is a timestamp not adjusted to UTC (%+v)", file, names[i], c.elem.LogicalType)
				}
				if isTime != slices.Contains(utcTimestamps[table], names[i]) {
					t.Errorf("%s: %s: timestamp %v, want %v", file, names[i], isTime, !isTime)
				}
				isList := c.elem.ConvertedType != nil && *c.elem.ConvertedType == "LIST" ||
					c.elem.LogicalType != nil && c.elem.LogicalType.Type == "LIST"
				if want := slices.Contains(textLists[table], names[i]); isList != want {
					t.Errorf("%s: %s: LIST %v, want %v", file, names[i], isList, want)
				} else if isList && (c.item == nil || c.item.Type == nil || *c.item.Type != "BYTE_ARRAY") {
					t.Errorf("%s: %s: a LIST of %+v, want text", file, names[i], c.item)
				}
			}
			want, err := queryRows(duck, "SELECT * FROM read_parquet("+sqltext.String(file)+", hive_partitioning = false)")
			if err != nil {
				t.Fatal(err)
			}
			got := result{columns: names}
			for _, row := range f.Data {
				vals := make([]string, len(row))
				for i, v := range row {
					vals[i] = canonHy(t, v)
				}
				got.rows = append(got.rows, vals)
			}
			if int64(len(got.rows)) != f.Rows {
				t.Errorf("%s: hyparquet read %d rows of %d", file, len(got.rows), f.Rows)
			}
			if d := compare(want, got); d != "" {
				t.Errorf("%s: hyparquet's reading differs from DuckDB's:\n%s", file, d)
			}
			counts[table] += int64(len(got.rows))
		}
	}
	return counts
}

// tableCounts is the rows of each exported table in the database.
func tableCounts(t *testing.T, db *analytics.DB) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, table := range []string{exportdir.Receipts, exportdir.Files, exportdir.Rejects, exportdir.ExpectedTools, exportdir.Trust} {
		var n int64
		if err := db.SQL().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		out[table] = n
	}
	return out
}

// TestEnginesParquetParts: a day cut into several parts by a small bound
// reads back with hyparquet as DuckDB reads it, no row lost or doubled.
func TestEnginesParquetParts(t *testing.T) {
	enginesOff(t)
	ctx := context.Background()
	db, err := analytics.Open(filepath.Join(t.TempDir(), "parts.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const n = 7000
	for _, s := range []string{
		`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) VALUES ('f1', 'in.jsonl', 1, 1, 1, 0, TIMESTAMP '2026-11-02 08:00:00')`,
		fmt.Sprintf(`INSERT INTO receipts (file_sha256, source, line, format, verdict, reasons, tool_match, tool_servers, issued_at, day, raw)
			SELECT 'f1', 'in.jsonl', i, 'asqav', 'FAIL', CASE WHEN i %% 3 = 0 THEN [] ELSE ['bad_signature', 'chain_fork'] END, 'match',
			       CASE WHEN i %% 5 = 0 THEN ['srv-' || (i %% 3)] END,
			       make_timestamp(1793577600000000 + ((i * 7919) %% %[1]d) * 1000000 + i),
			       DATE '2026-11-02', '{"n":' || i || ',"pad":"' || md5(i::VARCHAR) || '"}'
			FROM range(1, %[1]d + 1) r(i)`, n),
	} {
		if _, err := db.SQL().Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	dir := filepath.Join(t.TempDir(), "pq")
	sum, err := db.ExportParquet(ctx, dir, analytics.ExportOptions{MaxFileBytes: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Days) != 1 || sum.Days[0].Parts < 3 {
		t.Fatalf("export: %+v, want one day in 3 parts or more", sum.Days)
	}
	got := checkReadBack(t, dir)
	if want := tableCounts(t, db); !maps.Equal(got, want) {
		t.Errorf("hyparquet read %v rows, the database has %v", got, want)
	}
}
