// Package toolschema holds the tool schemas an agent was expected to use,
// as MCP servers advertise them, and answers which server's tool a
// tool_fingerprint belongs to.
//
// A schema file is either an MCP tools/list result,
// {"tools":[{"name", "inputSchema", ...}]} (also wrapped in a JSON-RPC
// {"result": {...}}), whose server is the file's base name, or a plain
// {tool_name: schema} map. Each tool's fingerprint is the Asqav
// tool_fingerprint of {tool_name, schema} under RFC 8785.
package toolschema

import (
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
)

// Tool is one tool as one server exposes it.
type Tool struct {
	Server      string
	Name        string
	Fingerprint string
}

// Set is every expected tool, indexed by name and by fingerprint.
type Set struct {
	tools  []Tool
	byName map[string][]int
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{byName: map[string][]int{}} }

// Len is the number of tools.
func (s *Set) Len() int { return len(s.tools) }

// Tools returns every tool in load order.
func (s *Set) Tools() []Tool { return slices.Clone(s.tools) }

// ServerName is the server name of a schema file: its base name without
// extension.
func ServerName(file string) string {
	base := path.Base(strings.ReplaceAll(file, "\\", "/"))
	for _, ext := range []string{".json", ".gz"} {
		base = strings.TrimSuffix(base, ext)
	}
	return strings.TrimSuffix(base, ".json")
}

// Add loads one schema file's bytes under server's name.
func (s *Set) Add(server string, data []byte) error {
	doc, err := canon.Parse(data, canon.ParseOptions{Duplicates: canon.RejectDuplicates})
	if err != nil {
		return fmt.Errorf("%s: %w", server, err)
	}
	if doc.Kind != canon.Object {
		return fmt.Errorf("%s: a schema file is a JSON object, not %s", server, doc.Kind)
	}
	if r := doc.Get("result"); r != nil && r.Kind == canon.Object && r.Get("tools") != nil {
		doc = *r
	}
	if tools := doc.Get("tools"); tools != nil && tools.Kind == canon.Array {
		for i := range tools.Items {
			t := &tools.Items[i]
			name := t.Get("name")
			if t.Kind != canon.Object || name == nil || name.Kind != canon.String {
				return fmt.Errorf("%s: tools[%d]: a tool needs a string name", server, i)
			}
			schema := t.Get("inputSchema")
			if schema != nil && schema.Kind != canon.Object && schema.Kind != canon.Null {
				return fmt.Errorf("%s: tools[%d] (%s): inputSchema must be an object", server, i, name.Text)
			}
			if err := s.add(server, name.Text, schema); err != nil {
				return fmt.Errorf("%s: tools[%d] (%s): %w", server, i, name.Text, err)
			}
		}
		return nil
	}
	for i := range doc.Members {
		m := &doc.Members[i]
		if m.Value.Kind != canon.Object && m.Value.Kind != canon.Null {
			return fmt.Errorf("%s: %s: a {tool_name: schema} map needs object schemas, found %s", server, m.Name, m.Value.Kind)
		}
		if err := s.add(server, m.Name, &m.Value); err != nil {
			return fmt.Errorf("%s: %s: %w", server, m.Name, err)
		}
	}
	return nil
}

func (s *Set) add(server, name string, schema *canon.Value) error {
	fp, err := fingerprint.AsqavTool(canon.RFC8785(), name, schema)
	if err != nil {
		return err
	}
	s.byName[name] = append(s.byName[name], len(s.tools))
	s.tools = append(s.tools, Tool{Server: server, Name: name, Fingerprint: fp})
	return nil
}

// Match is the answer for one (tool_name, tool_fingerprint) pair.
type Match int

// The answers.
const (
	Matched     Match = iota // a server exposes this name with this fingerprint
	Drift                    // the name is known, the fingerprint is not
	UnknownTool              // no server exposes this name
)

// Lookup says whether name with fingerprint fp is an expected tool, and
// which servers' schemas match (sorted).
func (s *Set) Lookup(name, fp string) (Match, []string) {
	idx, ok := s.byName[name]
	if !ok {
		return UnknownTool, nil
	}
	var servers []string
	for _, i := range idx {
		if s.tools[i].Fingerprint == fp {
			servers = append(servers, s.tools[i].Server)
		}
	}
	if len(servers) == 0 {
		return Drift, nil
	}
	sort.Strings(servers)
	return Matched, slices.Compact(servers)
}

// Collision is one tool name exposed with different schemas by different
// servers: the NSA CSI name-collision threat.
type Collision struct {
	Name  string
	Tools []Tool // one per (server, fingerprint), sorted by server
}

// Collisions lists every name with more than one distinct fingerprint,
// sorted by name.
func (s *Set) Collisions() []Collision {
	var out []Collision
	for name, idx := range s.byName {
		fps := map[string]bool{}
		var tools []Tool
		for _, i := range idx {
			fps[s.tools[i].Fingerprint] = true
			tools = append(tools, s.tools[i])
		}
		if len(fps) > 1 {
			sort.Slice(tools, func(a, b int) bool { return tools[a].Server < tools[b].Server })
			out = append(out, Collision{Name: name, Tools: tools})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}
