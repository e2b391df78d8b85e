package verify

import (
	"os"
	"strings"
	"testing"
)

// TestCompactJWSLines: a line of three base64url segments is a receipt,
// whatever white space surrounds it; anything else that is not JSON stays
// unreadable, with the JSON parser's error.
func TestCompactJWSLines(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../testdata/interop/jws/compact-alg-none/receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	token := strings.TrimSpace(string(raw))
	v, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []string{token, " \t" + token + "\r\n"} {
		res, err := v.Verify([]byte(in))
		if err != nil || res.Format != "jws" || res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonUnsupportedAlg {
			t.Errorf("%.20q: %s %s %v, err %v; want a jws FAIL (alg none)", in, res.Format, res.Verdict, res.Reasons, err)
		}
	}
	seg := strings.Split(token, ".")
	h, p := seg[0], seg[1]
	for _, in := range []string{
		h + "." + p,             // two segments
		token + ".x",            // four
		h + ".+" + p + ".",      // a character outside base64url
		"." + p + ".",           // no header
		h + "." + p + ".\n" + h, // two lines in one
	} {
		res, err := v.Verify([]byte(in))
		if err == nil || res.Verdict != Unreadable {
			t.Errorf("%.40q: %s %s, err %v; want UNREADABLE", in, res.Format, res.Verdict, err)
		}
	}
}
