package analytics

import (
	"bytes"
	"strings"
	"testing"
)

// TestReceiptTextEscapedInHTML checks that text from receipts reaches
// summary.html as the characters it holds: an entity in a tool name
// stays an entity's text, never the character it names (a right-to-left
// override) nor markup (<script>).
func TestReceiptTextEscapedInHTML(t *testing.T) {
	for _, name := range []string{"&#x202E;evil", "&lt;script&gt;x", "&amp;", "a&b<i>c</i>"} {
		md := "| tool |\n|---|\n| " + mdText(name) + " |\n\nAlso " + mdText(name) + " and `" + mdCode(name) + "`.\n"
		page, err := summaryHTML("2026-01-01", []byte(md), nil)
		if err != nil {
			t.Fatal(err)
		}
		body := page[bytes.Index(page, []byte("<body>")):bytes.LastIndex(page, []byte("<script>"))]
		if bytes.ContainsRune(body, '\u202e') || bytes.Contains(body, []byte("<script")) || bytes.Contains(body, []byte("<i>")) {
			t.Errorf("%q: the page acts on it:\n%s", name, body)
		}
		want := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(name)
		if got := bytes.Count(body, []byte(want)); got != 3 {
			t.Errorf("%q: %q shown %d times, want 3 (cell, text, code):\n%s", name, want, got, body)
		}
	}
}
