package analytics

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// ocsfAttributes is testdata/ocsf/attributes-1.8.0.json: every attribute
// of the classes and objects the OCSF events use, with its type, made from
// the OCSF schema's own files (the file's source says which).
type ocsfAttributes struct {
	Classes map[string]map[string]ocsfAttr `json:"classes"`
	Objects map[string]map[string]ocsfAttr `json:"objects"`
	Scalars []string                       `json:"scalars"`
}

type ocsfAttr struct {
	Type        string `json:"type"`
	Array       bool   `json:"array"`
	Requirement string `json:"requirement"`
}

func readOCSFAttributes(t *testing.T) *ocsfAttributes {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "ocsf", "attributes-1.8.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s ocsfAttributes
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Classes["detection_finding"]) == 0 || len(s.Objects["observable"]) == 0 {
		t.Fatal("attributes-1.8.0.json lacks detection_finding or observable")
	}
	return &s
}

// checkAttributes lists every member of ev (an event of class) that the
// schema does not define, or of another type, and every required
// attribute missing, at any depth.
func (s *ocsfAttributes) checkAttributes(class string, ev map[string]any) []string {
	var bad []string
	s.checkObject(class, s.Classes[class], ev, &bad)
	return bad
}

func (s *ocsfAttributes) checkObject(path string, attrs map[string]ocsfAttr, v map[string]any, bad *[]string) {
	for name, a := range attrs {
		if _, ok := v[name]; !ok && a.Requirement == "required" {
			*bad = append(*bad, path+": missing required "+name)
		}
	}
	for name, m := range v {
		a, ok := attrs[name]
		if !ok {
			*bad = append(*bad, path+": "+name+" is not an attribute")
			continue
		}
		p := path + "." + name
		if !a.Array {
			s.checkValue(p, a.Type, m, bad)
			continue
		}
		items, ok := m.([]any)
		if !ok {
			*bad = append(*bad, p+": not an array")
			continue
		}
		for i, it := range items {
			s.checkValue(fmt.Sprintf("%s[%d]", p, i), a.Type, it, bad)
		}
	}
}

func (s *ocsfAttributes) checkValue(path, typ string, v any, bad *[]string) {
	if typ == "object" { // unmapped: any object
		if _, ok := v.(map[string]any); !ok {
			*bad = append(*bad, path+": not an object")
		}
		return
	}
	if obj, isObject := s.Objects[typ]; isObject {
		m, ok := v.(map[string]any)
		if !ok {
			*bad = append(*bad, path+": not an object ("+typ+")")
			return
		}
		s.checkObject(path, obj, m, bad)
		return
	}
	ok := false
	switch typ {
	case "json_t":
		ok = true
	case "boolean_t":
		_, ok = v.(bool)
	case "integer_t", "long_t", "timestamp_t", "port_t":
		f, isNum := v.(float64)
		ok = isNum && f == float64(int64(f))
	case "float_t":
		_, ok = v.(float64)
	default:
		if !slices.Contains(s.Scalars, typ) {
			*bad = append(*bad, path+": type "+typ+" unknown to the schema")
			return
		}
		_, ok = v.(string)
	}
	if !ok {
		*bad = append(*bad, fmt.Sprintf("%s: %v is not a %s", path, v, typ))
	}
}

// TestOCSFAttributesChecker: the checker finds a member the schema does
// not define, one of the wrong type, and a missing required one.
func TestOCSFAttributesChecker(t *testing.T) {
	s := readOCSFAttributes(t)
	ev := map[string]any{
		"finding_info": map[string]any{"uid": "x", "attacks": []any{map[string]any{"technique": map[string]any{"uid": "T1036"}}}},
		"observables":  []any{map[string]any{"name": "agent_id", "type_id": 99.0, "value": "a"}},
	}
	bad := s.checkAttributes("detection_finding", ev)
	for _, name := range []string{"activity_id", "class_uid", "metadata", "severity_id", "time", "type_uid"} {
		if !slices.Contains(bad, "detection_finding: missing required "+name) {
			t.Errorf("missing %s not found: %v", name, bad)
		}
	}
	n := len(bad)
	ev["finding_info"].(map[string]any)["attacks"].([]any)[0].(map[string]any)["technique"].(map[string]any)["id"] = "T1036"
	ev["observables"].([]any)[0].(map[string]any)["type_id"] = "99"
	if bad := s.checkAttributes("detection_finding", ev); len(bad) != n+2 {
		t.Errorf("an unknown member and a string type_id: %v", bad[n:])
	}
}
