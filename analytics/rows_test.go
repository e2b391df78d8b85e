package analytics

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/receiptverify/verify/internal/helpers/jsonenc"
	"github.com/receiptverify/verify/verify"
)

func TestToolMatch(t *testing.T) {
	t.Parallel()
	tests := []struct {
		axis *verify.Axis
		want string
	}{
		{&verify.Axis{Status: verify.StatusPass}, toolMatch},
		{&verify.Axis{Status: verify.StatusFail, Reason: verify.ReasonToolDrift}, toolDrift},
		{&verify.Axis{Status: verify.StatusFail, Reason: verify.ReasonToolUnknown}, toolUnknown},
		{&verify.Axis{Status: verify.StatusFail, Reason: verify.ReasonBadField}, toolDrift},
		{&verify.Axis{Status: verify.StatusNotRun, Reason: verify.ReasonToolAbsent}, toolAbsent},
		{&verify.Axis{Status: verify.StatusNotRun}, toolNotRun},
		{&verify.Axis{Status: verify.StatusSkipped, Reason: verify.ReasonUncheckable}, toolNotRun},
		{nil, toolNotRun},
	}
	for _, tt := range tests {
		res := &verify.Result{Axes: verify.Axes{}}
		if tt.axis != nil {
			res.Axes.Set(verify.AxisToolFingerprint, *tt.axis)
		}
		if got := toolMatchOf(res); got != tt.want {
			t.Errorf("%+v: %s, want %s", tt.axis, got, tt.want)
		}
	}
}

// validJSONText is s with each invalid UTF-8 byte replaced by U+FFFD, as
// jsonenc.AppendChars writes it.
func validJSONText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

func checkJSONChars(t *testing.T, s string) {
	t.Helper()
	enc := append(append([]byte{'"'}, jsonenc.AppendChars(nil, s, false)...), '"')
	var got string
	if err := json.Unmarshal(enc, &got); err != nil {
		t.Fatalf("%q: encoded %q: %v", s, enc, err)
	}
	if want := validJSONText(s); got != want {
		t.Errorf("%q: decoded %q, want %q", s, got, want)
	}
	if string(jsonenc.AppendChars(nil, []byte(s), false)) != string(enc[1:len(enc)-1]) {
		t.Errorf("%q: string and []byte encodings differ", s)
	}
}

var jsonCharsSeeds = []string{
	"", "plain", `"quoted"`, `back\slash`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "é 😀 \u2028\u2029",
	"\xff", "a\xc3", "\xed\xa0\x80", `{"payload":{"a":"\"x\""}}`,
}

func TestAppendJSONChars(t *testing.T) {
	t.Parallel()
	for _, s := range jsonCharsSeeds {
		checkJSONChars(t, s)
	}
}

// FuzzAppendJSONChars runs TestAppendJSONChars's check on any text.
func FuzzAppendJSONChars(f *testing.F) {
	for _, s := range jsonCharsSeeds {
		f.Add(s)
	}
	f.Fuzz(checkJSONChars)
}
