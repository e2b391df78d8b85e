package canon

import "testing"

func TestAgentReceiptsGoDialect(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		// code-point order, Go's escapes, numbers through a double
		{`{"b":1.0,"a":"q=1&r=<2>\u2028","😀":0,"｠":-0}`, `{"a":"q=1\u0026r=\u003c2\u003e\u2028","b":1,"｠":0,"😀":0}`},
		{`{"n":9007199254740993,"e":1e21}`, `{"e":1e+21,"n":9007199254740992}`},
	} {
		got, err := AgentReceiptsGo().Canonicalize([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`{"n":1e400}`, `{"s":"\ud800"}`, `{"a":1,"a":2}`} {
		if got, err := AgentReceiptsGo().Canonicalize([]byte(in)); err == nil {
			t.Errorf("%s: got %s, want an error", in, got)
		}
	}
}
