package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"":                                    "",
		"plain text, ünïcödé and 漢字 ✓":        "plain text, ünïcödé and 漢字 ✓",
		`C:\schemas\files.json`:               `C:\schemas\files.json`,
		"evil\x1b[31mRED\x1b[0m":              `evil\x1b[31mRED\x1b[0m`,
		"a\r\nforged: PASS":                   `a\r\nforged: PASS`,
		"tab\there":                           `tab\there`,
		"nul\x00del\x7f":                      `nul\x00del\x7f`,
		"c1 csi \u009b2J":                     `c1 csi \u009b2J`,
		"bidi \u202eTXT.exe\u202c":            `bidi \u202eTXT.exe\u202c`,
		"isolate \u2066x\u2069, zwj a\u200db": `isolate \u2066x\u2069, zwj a\u200db`,
		"line\u2028para\u2029":                `line\u2028para\u2029`,
		"bad utf-8 \xff\xc3 end":              `bad utf-8 \xff\xc3 end`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzEscape: what Escape returns is valid UTF-8 with nothing left to
// escape, and text with nothing to escape comes back as it was.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "a\x1b[2Jb", "\u202e\u2028\xff", "é\u0085"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Escape(s)
		if !utf8.ValidString(out) || firstUnsafe(out) >= 0 {
			t.Fatalf("Escape(%q) = %q still holds a character to escape", s, out)
		}
		if firstUnsafe(s) < 0 && out != s {
			t.Fatalf("Escape(%q) = %q changed safe text", s, out)
		}
		if strings.Count(out, "\n") != 0 {
			t.Fatalf("Escape(%q) = %q holds a line break", s, out)
		}
	})
}
