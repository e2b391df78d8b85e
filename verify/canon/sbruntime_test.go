package canon

import "testing"

// The expected bytes are what sb-receipt's jcs_canonical (sb-runtime
// f64bd06, built with serde_json 1.0.87) writes for the values
// serde_json reads from each input.
func TestSBRuntimeDialect(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":500.0,"a":1e16,"c":1e-7,"é":"Zoë","a&b":"<x>\t"}`, `{"a":1e16,"a&b":"<x>\t","b":500.0,"c":1e-7,"é":"Zoë"}`},
		{`[18446744073709551615,-9223372036854775808,0.1]`, `[18446744073709551615,-9223372036854775808,0.1]`},
		{`{"ｂ":1,"😀":2}`, `{"ｂ":1,"😀":2}`},
	}
	for _, c := range cases {
		got, err := SBRuntime().Canonicalize([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}
