package canon

import "testing"

// The expected bytes are what agentmint-python's JCSSerializer (commit
// 33e5141) writes for the values json.loads reads from each input.
func TestAgentMintDialect(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"b":500.0,"a":0.0,"c":-0.0}`, `{"a":0,"b":500,"c":0}`},
		{`[1e16,1e+21,1e20,0.25,1e-07,1.5e+300,-2.0]`, `[10000000000000000,1e+21,100000000000000000000,0.25,1e-07,1.5e+300,-2]`},
		{`[12345678901234567890,-0,3]`, `[12345678901234567890,0,3]`},
		{`{"é":"Zoë","a&b":"<x>"}`, `{"a&b":"<x>","é":"Zoë"}`},
		{`[123456789012345678.0]`, `[123456789012345680]`},
	}
	for _, c := range cases {
		got, err := AgentMint().Canonicalize([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got) != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	if _, err := AgentMint().Canonicalize([]byte(`[1e400]`)); err == nil {
		t.Error("1e400: want an error, as JCSSerializer refuses a non-finite float")
	}
}
