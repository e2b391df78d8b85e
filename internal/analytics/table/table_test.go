package table

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestWriteTableEscapes: values from receipts are shown on one line each,
// tabs and line breaks as spaces, and anything else a terminal would act
// on (escape sequences, bidirectional overrides) as escapes.
func TestWriteTableEscapes(t *testing.T) {
	t.Parallel()
	tb := &Table{Columns: []string{"tool_name", "n"}, Rows: [][]any{{"evil\x1b[2J\r\nforged\tcell\u202e", int64(1)}}}
	var b strings.Builder
	if err := tb.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `evil\x1b[2J  forged cell\u202e`) {
		t.Fatalf("table:\n%q", b.String())
	}
}

// TestWriteCSVDefusesFormulas: a text value that a spreadsheet would run
// as a formula is written after a single quote; control and format
// characters are escapes, as in the text output; numbers and other text
// are written as they are.
func TestWriteCSVDefusesFormulas(t *testing.T) {
	tb := &Table{Columns: []string{"tool_name", "n"}, Rows: [][]any{
		{`=HYPERLINK("http://x","y")`, int64(-1)},
		{"+1", int64(2)}, {"-cmd", nil}, {"@SUM(A1)", nil}, {"\t=1", nil}, {"\r=1", nil},
		{"search", int64(3)}, {"a=b", nil}, {"", nil},
		{"line\nbreak", nil}, {"lone\rreturn", nil}, {"both\r\nends", nil},
		{"evil\x1b[2J\u202e\x00\xff", nil},
	}}
	var b strings.Builder
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	want := "tool_name,n\r\n" +
		`"'=HYPERLINK(""http://x"",""y"")",-1` + "\r\n" +
		"'+1,2\r\n'-cmd,\r\n'@SUM(A1),\r\n" + `\t=1,` + "\r\n" + `\r=1,` + "\r\n" +
		"search,3\r\na=b,\r\n,\r\n" +
		// Records end in CRLF; line breaks inside a value are escapes, as
		// in the text output, and so are other control and format
		// characters.
		`line\nbreak,` + "\r\n" + `lone\rreturn,` + "\r\n" + `both\r\nends,` + "\r\n" +
		`evil\x1b[2J\u202e\x00\xff,` + "\r\n"
	if b.String() != want {
		t.Errorf("csv:\n%q\nwant\n%q", b.String(), want)
	}
}

// TestJSONValueAsEncodingJSON: the JSON Lines writer's values are what
// encoding/json writes without HTML escaping.
func TestJSONValueAsEncodingJSON(t *testing.T) {
	for _, v := range []any{nil, int64(-7), true, 1.5, 1e21, "plain", `"q" \ <a&b>`, "\x00\x1f\t\n\r\b\f",
		"\u2028\u2029", "bad \xff utf-8", "émoji 🎉", []string{"a", "<b>", ""}} {
		var want strings.Builder
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := string(AppendJSONValue(nil, v)); got != strings.TrimSuffix(want.String(), "\n") {
			t.Errorf("%q: %s, want %s", v, got, want.String())
		}
	}
}
