package analytics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/severity"
)

// ecsFields is testdata/ecs/fields-9.4.0.json: the ECS field definitions
// (type, normalize, allowed values) of the field sets the events use,
// from elastic/ecs's generated ecs_flat.yml (the file's source says
// which).
type ecsFields struct {
	Fields map[string]struct {
		Type      string   `json:"type"`
		Normalize []string `json:"normalize"`
		Allowed   []string `json:"allowed"`
	} `json:"fields"`
}

// checkECS lists every field of ev (outside the custom verify field set)
// that ECS does not define, or of the wrong type or value.
func (f *ecsFields) checkECS(ev map[string]any) []string {
	var bad []string
	var walk func(prefix string, v any)
	walk = func(path string, v any) {
		def, defined := f.Fields[path]
		if m, isObject := v.(map[string]any); isObject && !(defined && (def.Type == "object" || def.Type == "flattened")) {
			for k, sub := range m {
				walk(strings.TrimPrefix(path+"."+k, "."), sub)
			}
			return
		}
		if !defined {
			bad = append(bad, path+": not an ECS field")
			return
		}
		vals := []any{v}
		if arr, isArray := v.([]any); isArray {
			if !slices.Contains(def.Normalize, "array") {
				bad = append(bad, path+": an array where ECS has one value")
			}
			vals = arr
		}
		for _, x := range vals {
			switch def.Type {
			case "keyword", "match_only_text", "wildcard", "constant_keyword", "text":
				if _, ok := x.(string); !ok {
					bad = append(bad, fmt.Sprintf("%s: %v is not a string", path, x))
				}
			case "long", "integer":
				if n, ok := x.(float64); !ok || n != float64(int64(n)) {
					bad = append(bad, fmt.Sprintf("%s: %v is not an integer", path, x))
				}
			case "date":
				s, _ := x.(string)
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					bad = append(bad, fmt.Sprintf("%s: %v is not a date", path, x))
				}
			case "object", "flattened":
				if _, ok := x.(map[string]any); !ok {
					bad = append(bad, path+": not an object")
				}
			default:
				bad = append(bad, path+": type "+def.Type+" not checked here")
			}
			if len(def.Allowed) > 0 && !slices.Contains(def.Allowed, fmt.Sprint(x)) {
				bad = append(bad, fmt.Sprintf("%s: %v is not an allowed value", path, x))
			}
		}
	}
	for k, v := range ev {
		if k == "verify" { // the custom field set: the row as it is
			continue
		}
		walk(k, v)
	}
	return bad
}

// TestECSEvents: every finding row of the fixture, a baseline applied, as
// an ECS event whose every field is ECS's, of its type and allowed values
// (elastic/ecs v9.4.0), with the fields a SIEM pivots on.
func TestECSEvents(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "ecs", "fields-9.4.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var fields ecsFields
	if err := json.Unmarshal(b, &fields); err != nil || len(fields.Fields) < 100 {
		t.Fatalf("fields-9.4.0.json: %v", err)
	}
	var out bytes.Buffer
	rows := 0
	for _, tb := range fixtureFindings(t) {
		rows += len(tb.Rows)
		if err := WriteECS(&out, tb, "test", severity.High); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(&out)
	sc.Buffer(nil, 1<<20)
	n, pivots := 0, map[string]int{}
	for sc.Scan() {
		n++
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if bad := fields.checkECS(ev); len(bad) > 0 {
			t.Errorf("event %s: %v", sc.Text(), bad)
		}
		for _, p := range []string{"@timestamp", "event.kind", "event.category", "rule.name", "rule.id", "gen_ai.agent.id", "gen_ai.tool.name", "gen_ai.tool.call.id", "event.severity", "threat.technique.id", "log.file.path"} {
			if _, ok := lookup(ev, p); ok {
				pivots[p]++
			}
		}
		rule, _ := lookup(ev, "rule.category")
		tags, _ := lookup(ev, "tags")
		if want := map[any]string{"drift": "SAFE-T1201", "collisions": "SAFE-T1004"}[rule]; want != "" && !slices.Contains(tags.([]any), any(want)) {
			t.Errorf("%s event without %s: %v", rule, want, tags)
		}
	}
	if n != rows || n == 0 {
		t.Errorf("%d events for %d rows", n, rows)
	}
	for _, p := range []string{"@timestamp", "event.kind", "event.category", "rule.name", "rule.id", "gen_ai.agent.id", "gen_ai.tool.name", "gen_ai.tool.call.id", "event.severity", "threat.technique.id", "log.file.path"} {
		if pivots[p] == 0 {
			t.Errorf("no event has %s", p)
		}
	}
	// The checker catches what it should.
	bad := fields.checkECS(map[string]any{"event": map[string]any{"kind": "finding", "severity": "high"}, "gen_ai": map[string]any{"agent": map[string]any{"uid": "x"}}})
	if len(bad) != 3 {
		t.Errorf("checker found %v", bad)
	}
}
