package analytics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/schemas"
	"github.com/receiptverify/verify/verify"
)

// A receipt's result is described in four places: the JSON output
// (verify's Result.AppendJSON), its JSON Schema (schemas/result.schema.json),
// the receipts table (schema.sql) and the row encoder that fills it
// (appendReceiptRow, receiptColumns, receiptInsert). TestResultFieldsAgree
// ties them: a field added to one and not to the others fails it, until it
// is added there or entered below with the reason it is not.
//
// A member of the JSON output is stored in the receipts column of the same
// name (its last path element: fields.nonce is nonce) unless jsonToColumn
// says otherwise; "" means it is not stored.
var jsonToColumn = map[string]string{
	"version":                       "", // of the output format, not of the receipt
	"error":                         "", // only UNREADABLE results have one, and they go to rejects.error
	"axes":                          "", // folded into verdict and reasons; tool_fingerprint's into tool_match
	"fields.expires_at":             "", // judged by the expiry axis at verification
	"fields.key_id":                 "", // no query reads these three; the receipt itself is in raw
	"fields.alg":                    "",
	"fields.key_self_asserted":      "",
	"fingerprints.action_ref":       "", // checked by the action_ref axis; the receipt is in raw
	"fingerprints.payload_digest":   "",
	"fingerprints.tool_fingerprint": "", // the computed one; the carried one is fields.tool_fingerprint
	"fingerprints.overturn":         "",
	"fingerprints.undolog_profile":  "",
}

// columnOnly are the receipts columns that no member of the JSON output
// fills, and where their values come from.
var columnOnly = map[string]string{
	"file_sha256":  "the SHA-256 of the file the receipt came from (files table)",
	"tool_match":   "the tool_fingerprint axis, as match, drift, unknown, absent or not_run",
	"byte_offset":  "Result.Offset, where the line starts in the file's content",
	"byte_length":  "the length of Result.Raw",
	"line_sha256":  "the SHA-256 of Result.Raw",
	"chain_scope":  "streamrun.ScopeDigest of the receipt's chain scope",
	"day":          "the UTC date of issued_at, or of the load",
	"raw":          "stream.Record.Raw, the receipt line exactly as read",
	"nonce_key":    "streamrun.NonceDigest of the issuer and the nonce",
	"trust_sha256": "the trust material the verdict came from (trust table)",
	"claim":        "not Result.Evidence(): the signature did not verify",
	// fields.lifecycle fills lifecycle (its kind) and these:
	"lifecycle_seq":     "fields.lifecycle.final_seq: a close's final sequence number, a checkpoint's head",
	"lifecycle_count":   "fields.lifecycle.receipt_count, a close's count",
	"heartbeat_seconds": "fields.lifecycle.heartbeat_seconds, a session_open's interval",
	"lifecycle_head":    "fields.lifecycle.head, the chain hash a checkpoint names",
	"lifecycle_scope":   "the chain scope a lifecycle record names: its own, a recorder checkpoint's key's",
	"consistency_size":  "fields.lifecycle.consistency_size, the tree size a log checkpoint's proof leads from",
	"consistency_root":  "fields.lifecycle.consistency_root, that tree's root",
}

func TestResultFieldsAgree(t *testing.T) {
	t.Parallel()
	res := fullResult(t)

	// The JSON output of a result with every member set.
	var out map[string]any
	if err := json.Unmarshal(res.AppendJSON(nil), &out); err != nil {
		t.Fatal(err)
	}
	output := memberPaths(out)

	// The JSON Schema's properties.
	var schema map[string]any
	if err := json.Unmarshal(schemas.Result(), &schema); err != nil {
		t.Fatal(err)
	}
	schemaPaths := propertyPaths(schema)
	if d := diff(output, schemaPaths); d != "" {
		t.Errorf("JSON output of a full result vs schemas/result.schema.json properties:\n%s", d)
	}

	// The receipts table as schema.sql creates it.
	db := openTestDB(t)
	columns := receiptsColumns(t, db)

	stored := map[string]string{} // column -> the JSON member it holds
	for _, p := range output {
		col, ok := jsonToColumn[p]
		if !ok {
			col = p[strings.LastIndexByte(p, '.')+1:]
		}
		if col == "" {
			continue
		}
		if !slices.Contains(columns, col) {
			t.Errorf("JSON member %s has no receipts column %s: add it to schema.sql and the row encoder, or to jsonToColumn", p, col)
		}
		stored[col] = p
	}
	for p := range jsonToColumn {
		if !slices.Contains(output, p) {
			t.Errorf("jsonToColumn names %s, which the JSON output does not have", p)
		}
	}
	for _, col := range columns {
		_, fromJSON := stored[col]
		_, only := columnOnly[col]
		switch {
		case fromJSON && only:
			t.Errorf("receipts column %s is both filled from %s and listed in columnOnly", col, stored[col])
		case !fromJSON && !only:
			t.Errorf("receipts column %s is in no JSON member: add the member to the output and the schema, or the column to columnOnly", col)
		}
	}
	for col := range columnOnly {
		if !slices.Contains(columns, col) {
			t.Errorf("columnOnly names %s, which the receipts table does not have", col)
		}
	}

	// The row encoder: what appendReceiptRow writes is what receiptColumns
	// reads, and receiptInsert fills every column.
	row := appendReceiptRow(nil, res, []byte(`{"r":1}`), 0, true, deliveryFlags{duplicate: true, chainOutside: true})
	var spooled map[string]any
	if err := json.Unmarshal(row, &spooled); err != nil {
		t.Fatal(err)
	}
	if d := diff(memberNames(spooled), spoolColumns(t)); d != "" {
		t.Errorf("appendReceiptRow of a full result vs receiptColumns:\n%s", d)
	}
	if d := diff(insertColumns(t), columns); d != "" {
		t.Errorf("receiptInsert's columns vs the receipts table:\n%s", d)
	}

	// And the row lands: every column of the stored row is set.
	spool := filepath.Join(t.TempDir(), "rows.ndjson")
	if err := os.WriteFile(spool, row, 0o600); err != nil {
		t.Fatal(err)
	}
	read := "read_ndjson('" + spool + "', columns=" + receiptColumns + ", format='newline_delimited')"
	if _, err := db.SQL().Exec(receiptInsert+read, strings.Repeat("ab", 32), "in.jsonl", "2026-11-02", strings.Repeat("cd", 32)); err != nil {
		t.Fatal(err)
	}
	for _, col := range columns {
		if n := queryInt(t, db, `SELECT count(*) FROM receipts WHERE "`+col+`" IS NULL`); n != 0 {
			t.Errorf("receipts.%s is NULL for a full result: the row encoder does not fill it", col)
		}
	}
}

// fullResult is a result with every member of Fields and Fingerprints set,
// found by reflection so that a field added later is set too, and the
// top-level members set by hand.
func fullResult(t *testing.T) *verify.Result {
	res := &verify.Result{
		Version: 1, Source: "in.jsonl", Line: 7, Format: "asqav", Verdict: verify.Fail,
		Reasons: []verify.Reason{verify.ReasonToolDrift}, Error: "e",
	}
	res.Axes.Set(verify.AxisToolFingerprint, verify.Axis{Status: verify.StatusFail, Reason: verify.ReasonToolDrift, Note: "n"})
	fill(t, reflect.ValueOf(&res.Fields).Elem())
	fill(t, reflect.ValueOf(&res.Fingerprints).Elem())
	res.Fields.IssuedAt = "2026-11-01T23:59:59Z"
	return res
}

// fill sets every exported field of the struct v to a value that is not
// its zero.
func fill(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !v.Type().Field(i).IsExported() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("v" + v.Type().Field(i).Name)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Int, reflect.Int64:
			f.SetInt(3)
		case reflect.Slice:
			if f.Type().Elem().Kind() != reflect.String {
				t.Fatalf("fill: %s: no value for %s", v.Type().Field(i).Name, f.Type())
			}
			f.Set(reflect.Append(reflect.MakeSlice(f.Type(), 0, 1), reflect.ValueOf("s").Convert(f.Type().Elem())))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			switch f.Elem().Kind() {
			case reflect.Struct:
				fill(t, f.Elem())
			case reflect.Int, reflect.Int64:
				f.Elem().SetInt(3)
			default:
				t.Fatalf("fill: %s: no value for %s", v.Type().Field(i).Name, f.Type())
			}
		default:
			t.Fatalf("fill: %s: no value for %s", v.Type().Field(i).Name, f.Type())
		}
	}
}

// memberPaths lists the members of the output, those of fields and
// fingerprints as "fields.name"; the members of axes, of payload_digest and
// the like are their parent's business.
func memberPaths(out map[string]any) []string {
	var paths []string
	for k, v := range out {
		if m, ok := v.(map[string]any); ok && (k == "fields" || k == "fingerprints") {
			for kk := range m {
				paths = append(paths, k+"."+kk)
			}
			continue
		}
		paths = append(paths, k)
	}
	sort.Strings(paths)
	return paths
}

// propertyPaths lists the schema's properties as memberPaths does.
func propertyPaths(schema map[string]any) []string {
	var paths []string
	props, _ := schema["properties"].(map[string]any)
	for k, v := range props {
		if k == "fields" || k == "fingerprints" {
			sub, _ := v.(map[string]any)["properties"].(map[string]any)
			for kk := range sub {
				paths = append(paths, k+"."+kk)
			}
			continue
		}
		paths = append(paths, k)
	}
	sort.Strings(paths)
	return paths
}

func receiptsColumns(t *testing.T, db *DB) []string {
	rows, err := db.SQL().Query(`SELECT column_name FROM information_schema.columns WHERE table_name = 'receipts' ORDER BY ordinal_position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var cols []string
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	if err := rows.Err(); err != nil || len(cols) == 0 {
		t.Fatalf("receipts columns: %v, %v", cols, err)
	}
	sort.Strings(cols)
	return cols
}

// spoolColumns are the names receiptColumns gives read_ndjson.
func spoolColumns(t *testing.T) []string {
	m := regexp.MustCompile(`(\w+): '`).FindAllStringSubmatch(receiptColumns, -1)
	if len(m) == 0 {
		t.Fatal("receiptColumns: no columns")
	}
	var cols []string
	for _, c := range m {
		cols = append(cols, c[1])
	}
	sort.Strings(cols)
	return cols
}

// insertColumns are the columns receiptInsert names.
func insertColumns(t *testing.T) []string {
	m := regexp.MustCompile(`INSERT INTO receipts \(([^)]*)\)`).FindStringSubmatch(receiptInsert)
	if m == nil {
		t.Fatal("receiptInsert: no column list")
	}
	var cols []string
	for _, c := range strings.Split(m[1], ",") {
		cols = append(cols, strings.TrimSpace(c))
	}
	sort.Strings(cols)
	return cols
}

func memberNames(m map[string]any) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// diff describes what each sorted list has that the other lacks, or "".
func diff(a, b []string) string {
	var s strings.Builder
	for _, x := range a {
		if !slices.Contains(b, x) {
			s.WriteString("  only in the first: " + x + "\n")
		}
	}
	for _, x := range b {
		if !slices.Contains(a, x) {
			s.WriteString("  only in the second: " + x + "\n")
		}
	}
	return s.String()
}

// TestRowIssuedAtEveryForm: the row encoder files a receipt under the
// instant the verifier read from issued_at (Result.IssuedTime), in every
// form the verifier reads, not only RFC 3339.
func TestRowIssuedAtEveryForm(t *testing.T) {
	t.Parallel()
	const want = "2026-11-01T22:30:00Z"
	for _, in := range []string{
		"2026-11-01T22:30:00Z",
		"2026-11-01T22:30:00.000000+00:00",
		"2026-11-01 22:30:00",
		"2026-11-01T22:30",
		"2026-11-02T00:00:00+01:30",
		"2026-11-02T00:00:00+0130",
		"2026-11-01T17:30:00-05",
	} {
		res := &verify.Result{Fields: verify.Fields{IssuedAt: in}}
		var row struct {
			IssuedUS *int64 `json:"issued_us"`
		}
		if err := json.Unmarshal(appendReceiptRow(nil, res, nil, 0, true, deliveryFlags{}), &row); err != nil {
			t.Fatal(err)
		}
		if row.IssuedUS == nil {
			t.Errorf("issued_at %q: no issued_us in the row", in)
			continue
		}
		if got := time.UnixMicro(*row.IssuedUS).UTC().Format(time.RFC3339); got != want {
			t.Errorf("issued_at %q: row files it at %s, want %s", in, got, want)
		}
	}
	// A date alone is midnight UTC.
	res := &verify.Result{Fields: verify.Fields{IssuedAt: "2026-11-01"}}
	if !strings.Contains(string(appendReceiptRow(nil, res, nil, 0, true, deliveryFlags{})), `"issued_us":1793491200000000`) {
		t.Errorf("issued_at 2026-11-01: row %s", appendReceiptRow(nil, res, nil, 0, true, deliveryFlags{}))
	}
}
