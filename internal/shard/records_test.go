package shard

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
)

// recordsTable is the declared columns of records-NNNNN.parquet (the
// package documentation), as DuckDB types.
const recordsTable = `CREATE TABLE records (
	ord BIGINT NOT NULL, source VARCHAR NOT NULL, line BIGINT NOT NULL,
	format VARCHAR NOT NULL, verdict VARCHAR NOT NULL, reasons VARCHAR[] NOT NULL, axes VARCHAR NOT NULL,
	chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR,
	state BLOB NOT NULL, byte_offset BIGINT, byte_length BIGINT, line_sha256 BLOB, receipt_order VARCHAR, claim BOOLEAN NOT NULL,
	base_verdict VARCHAR NOT NULL, base_reasons VARCHAR NOT NULL,
	fail_pre VARCHAR NOT NULL, fail_mid VARCHAR NOT NULL, fail_post VARCHAR NOT NULL,
	skip_pre VARCHAR NOT NULL, skip_mid VARCHAR NOT NULL, skip_post VARCHAR NOT NULL,
	chain_status VARCHAR NOT NULL, chain_reason VARCHAR NOT NULL, nonce_status VARCHAR NOT NULL, nonce_reason VARCHAR NOT NULL,
	chain_note VARCHAR NOT NULL, nonce_note VARCHAR NOT NULL, link_prev VARCHAR NOT NULL, chain_what VARCHAR NOT NULL, claim_note VARCHAR NOT NULL,
	unknown_format BOOLEAN NOT NULL)`

// testRecord is record i of TestPartsRoundTrip: every third without
// keys or line (NULLs), reasons of none, one or two, state and line hash
// bytes of every value, each string column a value of its own.
func testRecord(i int) *streamrun.Mapped {
	r := &verify.Result{Source: fmt.Sprintf("in/%d.jsonl", i%2), Line: i + 1, Format: "asqav-native", Verdict: verify.Pass}
	switch i % 3 {
	case 1:
		r.Verdict, r.Reasons = verify.Fail, []verify.Reason{"bad_signature"}
		r.Axes.Set(verify.AxisSignature, verify.Axis{Status: verify.StatusFail, Reason: "bad_signature", Note: fmt.Sprint(i)})
	case 2:
		r.Verdict, r.Reasons = verify.Fail, []verify.Reason{"key_revoked", "chain_break"}
	}
	m := &streamrun.Mapped{Seq: uint64(i), Result: r, State: []byte{0, byte(i), 0xff, 0}}
	if i%3 != 0 {
		m.Keys = streamrun.Keys{Chain: fmt.Sprintf("c%d", i), Link: fmt.Sprintf("l%d", i), Scope: fmt.Sprintf("s%d", i%4),
			Nonce: fmt.Sprintf("n%d", i), Order: fmt.Sprintf("o%d", i), Claim: i%2 == 0}
		m.HasLine = true
		m.Line = streamrun.LineRef{Offset: int64(i) * 100, Length: 99}
		m.Line.SHA256[0], m.Line.SHA256[31] = byte(i), 0
	}
	f := &m.Fold
	f.Verdict, f.Reasons = string(r.Verdict), fmt.Sprintf("br%d", i)
	f.Fail = [3]string{fmt.Sprintf("fp%d", i), fmt.Sprintf("fm%d", i), fmt.Sprintf("fo%d", i)}
	f.Skip = [3]string{fmt.Sprintf("sp%d", i), "", fmt.Sprintf("so%d", i)}
	f.Chain = verify.Axis{Status: verify.StatusPass, Reason: verify.Reason(fmt.Sprintf("cr%d", i))}
	f.Nonce = verify.Axis{Status: verify.StatusNotRun, Reason: verify.Reason(fmt.Sprintf("nr%d", i)), Note: fmt.Sprintf("nn%d", i)}
	f.Chain.Note = fmt.Sprintf("cn%d", i)
	f.Prev, f.What, f.Claim, f.UnknownFormat = fmt.Sprintf("p%d", i), fmt.Sprintf("w%d", i%2), fmt.Sprintf("cl%d", i), i%4 == 1
	return m
}

// TestPartsRoundTrip: the parts a Writer writes have the declared
// columns as DuckDB sees them (names, order, types, NOT NULL as
// required), parts of partRows rows in row groups of groupRows, and
// every field read back as written: NULLs, empty reasons, bytes.
func TestPartsRoundTrip(t *testing.T) {
	oldParts, oldGroups := partRows, groupRows
	partRows, groupRows = 7, 3
	t.Cleanup(func() { partRows, groupRows = oldParts, oldGroups })
	dir := t.TempDir()
	input := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(input, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := testPlan(t, input)
	out := filepath.Join(dir, "shard-0")
	w, err := Create(out, plan, 0, plan.Trust)
	if err != nil {
		t.Fatal(err)
	}
	const n = 17
	for i := range n {
		if err := w.Add(testRecord(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(streamrun.MapSummary{}); err != nil {
		t.Fatal(err)
	}
	m, err := readManifest(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Parts) != 3 || m.Rows != n {
		t.Fatalf("%d parts of %d rows, want 3 of %d", len(m.Parts), m.Rows, n)
	}
	db, err := openDuckDB()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(recordsTable); err != nil {
		t.Fatal(err)
	}
	want := columnsOf(t, db, "SELECT column_name, data_type, is_nullable FROM duckdb_columns() WHERE table_name = 'records' ORDER BY column_index")
	var paths []string
	for i, p := range m.Parts {
		path := filepath.Join(out, p.Name)
		paths = append(paths, sqltext.String(path))
		got := columnsOf(t, db, fmt.Sprintf(`SELECT d.column_name, d.column_type, s.repetition_type = 'OPTIONAL'
			FROM (SELECT column_name, column_type, row_number() OVER () AS i FROM (DESCRIBE SELECT * FROM read_parquet(%[1]s))) d
			JOIN (SELECT name, repetition_type FROM parquet_schema(%[1]s) WHERE name NOT IN ('list', 'element')) s ON s.name = d.column_name
			ORDER BY d.i`, sqltext.String(path)))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: columns\n%v\nwant\n%v", p.Name, got, want)
		}
		var groups []int64
		rows, err := db.Query(fmt.Sprintf("SELECT DISTINCT row_group_id, row_group_num_rows FROM parquet_metadata(%s) ORDER BY 1", sqltext.String(path)))
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id, nrows int64
			if err := rows.Scan(&id, &nrows); err != nil {
				t.Fatal(err)
			}
			groups = append(groups, nrows)
		}
		rows.Close()
		wantGroups := [][]int64{{3, 3, 1}, {3, 3, 1}, {3}}[i]
		if !reflect.DeepEqual(groups, wantGroups) {
			t.Errorf("%s: row groups of %v rows, want %v", p.Name, groups, wantGroups)
		}
	}
	rows, err := db.Query(fmt.Sprintf("SELECT * EXCLUDE (reasons), CAST(to_json(reasons) AS VARCHAR) FROM read_parquet([%s]) ORDER BY ord", strings.Join(paths, ", ")))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var (
			ord, line                                         int64
			source, format, verdict, axes, reasons            string
			chain, link, scope, nonce, order                  sql.NullString
			state, sum                                        []byte
			offset, length                                    sql.NullInt64
			claim                                             bool
			base, baseReasons, fp, fm, fo, sp, sm, so, cs, cr string
			ns, nr, cn, nn, prev, what, clm                   string
			unknown                                           bool
		)
		if err := rows.Scan(&ord, &source, &line, &format, &verdict, &axes, &chain, &link, &scope, &nonce, &state, &offset, &length, &sum, &order, &claim,
			&base, &baseReasons, &fp, &fm, &fo, &sp, &sm, &so, &cs, &cr, &ns, &nr, &cn, &nn, &prev, &what, &clm, &unknown, &reasons); err != nil {
			t.Fatal(err)
		}
		x := testRecord(i)
		r := x.Result
		wantAxes, _ := r.Axes.MarshalJSON()
		wantReasons, _ := json.Marshal(append([]verify.Reason{}, r.Reasons...))
		null := func(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }
		got := []any{ord, source, line, format, verdict, reasons, axes, chain, link, scope, nonce, state, offset, length, order, claim,
			base, baseReasons, fp, fm, fo, sp, sm, so, cs, cr, ns, nr, cn, nn, prev, what, clm, unknown}
		want := []any{int64(i), r.Source, int64(r.Line), r.Format, string(r.Verdict), string(wantReasons), string(wantAxes),
			null(x.Keys.Chain), null(x.Keys.Link), null(x.Keys.Scope), null(x.Keys.Nonce), x.State,
			sql.NullInt64{Int64: x.Line.Offset, Valid: x.HasLine}, sql.NullInt64{Int64: x.Line.Length, Valid: x.HasLine}, null(x.Keys.Order), x.Keys.Claim,
			x.Fold.Verdict, x.Fold.Reasons, x.Fold.Fail[0], x.Fold.Fail[1], x.Fold.Fail[2], x.Fold.Skip[0], x.Fold.Skip[1], x.Fold.Skip[2],
			string(x.Fold.Chain.Status), string(x.Fold.Chain.Reason), string(x.Fold.Nonce.Status), string(x.Fold.Nonce.Reason),
			x.Fold.Chain.Note, x.Fold.Nonce.Note, x.Fold.Prev, x.Fold.What, x.Fold.Claim, x.Fold.UnknownFormat}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("record %d:\n%v\nwant\n%v", i, got, want)
		}
		if x.HasLine != (sum != nil) || x.HasLine && !bytes.Equal(sum, x.Line.SHA256[:]) {
			t.Errorf("record %d: line_sha256 %x, want %x (%v)", i, sum, x.Line.SHA256, x.HasLine)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != n {
		t.Errorf("%d records read, want %d", i, n)
	}
	// The statistics a reader skips row groups by hold: a filter on a
	// string and on ord finds its rows.
	var c1, c2 int
	if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FILTER (WHERE link_key = 'l16'), count(*) FILTER (WHERE ord BETWEEN 5 AND 9) FROM read_parquet([%s])", strings.Join(paths, ", "))).Scan(&c1, &c2); err != nil {
		t.Fatal(err)
	}
	if c1 != 1 || c2 != 5 {
		t.Errorf("filters found %d and %d rows, want 1 and 5", c1, c2)
	}
}

// columnsOf is the rows of query: a column's name, type and whether it
// is nullable.
func columnsOf(t *testing.T, db *sql.DB, query string) []string {
	t.Helper()
	rows, err := db.Query(query)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var name, typ string
		var null bool
		if err := rows.Scan(&name, &typ, &null); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, fmt.Sprintf("%s %s null=%v", name, typ, null))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return cols
}
