package toolschema

import (
	"slices"
	"strings"
	"testing"
)

// searchFP is the Asqav tool fingerprint of {"tool_name":"search",
// "schema":{"args":{"q":"string"}}} (verify/fingerprint's vectors).
const searchFP = "e2ce58b024c0b821c9017a667e504390"

// TestAddForms: a tools/list result, the same wrapped in a JSON-RPC
// response, and a plain {tool_name: schema} map give the same fingerprint
// for the same tool, each under its own server.
func TestAddForms(t *testing.T) {
	s := NewSet()
	for _, f := range []struct{ server, data string }{
		{"list", `{"tools":[{"name":"search","description":"ignored","inputSchema":{"args":{"q":"string"}}}]}`},
		{"rpc", `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search","inputSchema":{"args":{"q":"string"}}}]}}`},
		{"map", `{"search":{"args":{"q":"string"}}}`},
	} {
		if err := s.Add(f.server, []byte(f.data)); err != nil {
			t.Fatalf("%s: %v", f.server, err)
		}
	}
	want := []Tool{{"list", "search", searchFP}, {"rpc", "search", searchFP}, {"map", "search", searchFP}}
	if got := s.Tools(); !slices.Equal(got, want) {
		t.Fatalf("tools %+v, want %+v", got, want)
	}
	if m, servers := s.Lookup("search", searchFP); m != Matched || !slices.Equal(servers, []string{"list", "map", "rpc"}) {
		t.Errorf("lookup: %v %v", m, servers)
	}
	if len(s.Collisions()) != 0 {
		t.Errorf("one schema under three servers is no collision: %+v", s.Collisions())
	}
}

// TestLookupAndCollisions: a name with a fingerprint no server gives is
// drift, a name no server gives is unknown, and one name with two schemas
// on two servers is a collision listing both.
func TestLookupAndCollisions(t *testing.T) {
	s := NewSet()
	if err := s.Add("a", []byte(`{"search":{"args":{"q":"string"}},"write":{}}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("b", []byte(`{"tools":[{"name":"search","inputSchema":{"args":{"q":"number"}}}]}`)); err != nil {
		t.Fatal(err)
	}
	if m, servers := s.Lookup("search", searchFP); m != Matched || !slices.Equal(servers, []string{"a"}) {
		t.Errorf("search from a: %v %v", m, servers)
	}
	if m, _ := s.Lookup("search", strings.Repeat("0", 32)); m != Drift {
		t.Errorf("unknown fingerprint: %v, want drift", m)
	}
	if m, _ := s.Lookup("delete", searchFP); m != UnknownTool {
		t.Errorf("unknown name: %v", m)
	}
	cs := s.Collisions()
	if len(cs) != 1 || cs[0].Name != "search" || len(cs[0].Tools) != 2 || cs[0].Tools[0].Server != "a" || cs[0].Tools[1].Server != "b" {
		t.Fatalf("collisions %+v", cs)
	}
	if cs[0].Tools[0].Fingerprint == cs[0].Tools[1].Fingerprint {
		t.Error("different schemas, same fingerprint")
	}
}

// TestAddRejects: each malformed file is refused with an error naming the
// server and, where there is one, the tool.
func TestAddRejects(t *testing.T) {
	for _, tt := range []struct{ data, want string }{
		{`[]`, "a schema file is a JSON object"},
		{`{"tools":[{"inputSchema":{}}]}`, "tools[0]: a tool needs a string name"},
		{`{"tools":[{"name":"x","inputSchema":[]}]}`, "tools[0] (x): inputSchema must be an object"},
		{`{"x":1}`, "x: a {tool_name: schema} map needs object schemas"},
		{`{"x":{},"x":{}}`, "duplicate"},
		{`{"tools":[`, "srv: "},
	} {
		err := NewSet().Add("srv", []byte(tt.data))
		if err == nil || !strings.HasPrefix(err.Error(), "srv: ") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one naming srv and %q", tt.data, err, tt.want)
		}
	}
}

func TestServerName(t *testing.T) {
	for in, want := range map[string]string{
		"schemas/github.json":      "github",
		"schemas/github.json.gz":   "github",
		`C:\schemas\files.json`:    "files",
		"fs":                       "fs",
		"schemas/two.dots.json":    "two.dots",
		"/srv/schemas/search.json": "search",
	} {
		if got := ServerName(in); got != want {
			t.Errorf("ServerName(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzAdd loads any bytes as a schema file: an error or a set in which
// every tool's fingerprint is 32 lowercase hex and finds its own server.
func FuzzAdd(f *testing.F) {
	for _, s := range []string{
		`{"tools":[{"name":"search","inputSchema":{"args":{"q":"string"}}}]}`,
		`{"result":{"tools":[{"name":"a"},{"name":"a","inputSchema":null}]}}`,
		`{"search":{"args":{"q":"string"}},"write":null}`,
		`{"tools":{}}`, `{}`, `[`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := NewSet()
		if err := s.Add("srv", data); err != nil {
			return
		}
		for _, tool := range s.Tools() {
			if len(tool.Fingerprint) != 32 || strings.Trim(tool.Fingerprint, "0123456789abcdef") != "" {
				t.Fatalf("%s: fingerprint %q", tool.Name, tool.Fingerprint)
			}
			if m, servers := s.Lookup(tool.Name, tool.Fingerprint); m != Matched || !slices.Contains(servers, "srv") {
				t.Fatalf("%s: lookup %v %v", tool.Name, m, servers)
			}
		}
	})
}
