package verify

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"
)

// TestLoneSurrogateStrictDialects: a string cut inside an emoji ("\ud83d")
// is read, and the formats whose dialect cannot carry it (RFC 8785 and the
// Asqav forms) fail it with a note that names the lone surrogate, instead
// of leaving the line unreadable. Genuine vectors of each format get the
// escape put into one of their strings.
func TestLoneSurrogateStrictDialects(t *testing.T) {
	t.Parallel()
	edits := map[string]string{
		"interop/asqav-native/ed25519-valid":                      `"action_id": "`,
		"interop/asqav-hash/ed25519-tampered-decision":            `"action_id": "`,
		"interop/acta/astral-member-names":                        `"trust_level": "`,
		"interop/agentreceipts/nfd-text-normalized-after-signing": `"session_id": "`,
		"interop/aerf/genesis":                                    `"agent": "`,
	}
	seen := 0
	for _, c := range vectors.Cases(t, "..") {
		needle, ok := edits[c.Name]
		if !ok {
			continue
		}
		seen++
		t.Run(c.Name, func(t *testing.T) {
			raw := readFile(t, filepath.Join(c.Dir, c.Input))
			if !bytes.Contains(raw, []byte(needle)) {
				t.Fatalf("vector has no %s", needle)
			}
			raw = bytes.Replace(raw, []byte(needle), []byte(needle+`\ud83d`), 1)
			res, err := vectorVerifier(t, c).Verify(raw)
			if err != nil || res.Verdict == Unreadable {
				t.Fatalf("unreadable: %v", err)
			}
			if res.Verdict != Fail {
				t.Fatalf("verdict %s, want FAIL", res.Verdict)
			}
			ax, _ := res.Axes.Get(AxisStructure)
			if ax.Reason != ReasonMalformed || !strings.Contains(ax.Note, "lone surrogate") {
				t.Errorf("structure axis %+v, want malformed naming the lone surrogate", ax)
			}
		})
	}
	if seen != len(edits) {
		t.Fatalf("found %d of the %d vectors", seen, len(edits))
	}
}

// TestLoneSurrogateResultText: a Result's fields hold one U+FFFD for each
// lone surrogate, never the WTF-8 bytes the parse keeps.
func TestLoneSurrogateResultText(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"plain":                       "plain",
		"a\xed\xa0\xbdb":              "a\uFFFDb",
		"\xed\xa0\xbd\xed\xb8\x80":    "\uFFFD\uFFFD",
		"\xed\x9f\xbf stays (U+D7FF)": "\xed\x9f\xbf stays (U+D7FF)",
		"end\xed\xa0":                 "end\xed\xa0",
	} {
		if got := replaceLoneSurrogates(in); got != want {
			t.Errorf("replaceLoneSurrogates(%q) = %q, want %q", in, got, want)
		}
	}
	var r Result
	r.Fields.ActionID = "act_\xed\xa0\xbd"
	resultText(&r)
	if r.Fields.ActionID != "act_\uFFFD" {
		t.Errorf("ActionID %q", r.Fields.ActionID)
	}
}
