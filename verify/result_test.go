package verify

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/receiptverify/verify/schemas"
)

// TestResultMatchesSchema pins the JSON keys of Result, Fields and
// Fingerprints to schemas/result.schema.json, so the output contract cannot
// change by accident.
func TestResultMatchesSchema(t *testing.T) {
	var schema struct {
		Properties map[string]struct {
			Properties map[string]any `json:"properties"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(schemas.Result(), &schema); err != nil {
		t.Fatal(err)
	}
	check := func(name string, typ reflect.Type, want map[string]any) {
		var got, exp []string
		for i := 0; i < typ.NumField(); i++ {
			if tag := typ.Field(i).Tag.Get("json"); tag != "" && tag != "-" {
				got = append(got, splitTag(tag))
			}
		}
		for k := range want {
			exp = append(exp, k)
		}
		sort.Strings(got)
		sort.Strings(exp)
		if !reflect.DeepEqual(got, exp) {
			t.Errorf("%s: struct keys %v, schema %v", name, got, exp)
		}
	}
	top := map[string]any{}
	for k := range schema.Properties {
		top[k] = nil
	}
	check("Result", reflect.TypeOf(Result{}), top)
	check("Fields", reflect.TypeOf(Fields{}), schema.Properties["fields"].Properties)
	check("Fingerprints", reflect.TypeOf(Fingerprints{}), schema.Properties["fingerprints"].Properties)
}

func splitTag(tag string) string {
	for i := 0; i < len(tag); i++ {
		if tag[i] == ',' {
			return tag[:i]
		}
	}
	return tag
}
