package canon

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestPipelockStrings(t *testing.T) {
	// Go's json.Marshal is the reference's quoting, so it is the oracle.
	for _, s := range []string{
		"", "plain", `a"b\c`, "\b\f\n\r\t\x00\x1f\x7f",
		"https://x.example/?a=1&b=<2>", "line\u2028sep\u2029", "é e\u0301 😀 \uFFFD",
	} {
		got, err := appendStringGo(nil, s)
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		want, _ := json.Marshal(s)
		if string(got) != string(want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func FuzzPipelockString(f *testing.F) {
	f.Add("a&b<c>\u2028")
	f.Fuzz(func(t *testing.T, s string) {
		got, err := appendStringGo(nil, s)
		want, _ := json.Marshal(s)
		switch {
		case err != nil && !errors.Is(err, &Error{Reason: ReasonLoneSurrogate}):
			t.Fatalf("%q: %v", s, err)
		case err == nil && string(got) != string(want):
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestPipelockDialect(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"b":1,"a":"x&y","😀":0,"｠":-0}`, `{"a":"x\u0026y","b":1,"｠":-0,"😀":0}`}, // code-point order, integers verbatim
		{`{"n":9223372036854775807}`, `{"n":9223372036854775807}`},
	} {
		got, err := Pipelock().Canonicalize([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`{"f":1.5}`, `{"f":1e2}`, `{"n":9223372036854775808}`, `{"s":"\ud800"}`} {
		if got, err := Pipelock().Canonicalize([]byte(in)); err == nil {
			t.Errorf("%s: got %s, want an error", in, got)
		}
	}
}
