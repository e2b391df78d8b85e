package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/receiptverify/verify/analytics"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// sigmaRule is the part of a Sigma rule the shipped rules use: a detection
// of field equalities (dotted paths into verify's receipt JSON Lines), or
// a value_count correlation over another rule.
type sigmaRule struct {
	Title     string `yaml:"title"`
	ID        string `yaml:"id"`
	Detection struct {
		Selection map[string]string `yaml:"selection"`
		Condition string            `yaml:"condition"`
	} `yaml:"detection"`
	Correlation *struct {
		Type      string   `yaml:"type"`
		Rules     []string `yaml:"rules"`
		GroupBy   []string `yaml:"group-by"`
		Timespan  string   `yaml:"timespan"`
		Condition struct {
			Field string `yaml:"field"`
			Gte   int    `yaml:"gte"`
		} `yaml:"condition"`
	} `yaml:"correlation"`
}

// field is the value at a dotted path of a decoded JSON object, as text.
func field(doc map[string]any, path string) (string, bool) {
	var cur any = doc
	for p := range strings.SplitSeq(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return "", false
		}
		if cur, ok = m[p]; !ok || cur == nil {
			return "", false
		}
	}
	return fmt.Sprint(cur), true
}

// matches says whether a result line matches a detection rule.
func (r *sigmaRule) matches(doc map[string]any) bool {
	for k, want := range r.Detection.Selection {
		if got, ok := field(doc, k); !ok || got != want {
			return false
		}
	}
	return true
}

// TestSigmaRulesAndTwins: every rule in queries/sigma validates against
// the Sigma specification's schema; run over verify's JSON Lines of the
// demo archive, each names exactly the receipts (or tool-days) truth.jsonl
// plants of its kind, and its SQL twin over an audit database of the same
// archive returns exactly those rows.
func TestSigmaRulesAndTwins(t *testing.T) {
	dir := filepath.Join("..", "..", "queries", "sigma")
	demo := filepath.Join("..", "..", "testdata", "demo")
	schemas := map[bool]*jsonschema.Schema{}
	for correlation, f := range map[bool]string{false: "sigma-detection-rule-schema.json", true: "sigma-correlation-rules-schema.json"} {
		fh, err := os.Open(filepath.Join(dir, "testdata", f))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource(f, doc); err != nil {
			t.Fatal(err)
		}
		if schemas[correlation], err = c.Compile(f); err != nil {
			t.Fatal(err)
		}
	}

	args := []string{"--keys", filepath.Join(demo, "keys", "jwks.json"), "--schemas", filepath.Join(demo, "schemas"), "--at", "2026-12-01T00:00:00Z"}
	source := filepath.Join(demo, "receipts.jsonl")
	code, out, _ := runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, args...), source)...)
	if code != exitRejected {
		t.Fatalf("receipts: exit %d", code)
	}
	var results []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		results = append(results, m)
	}
	dbPath := filepath.Join(t.TempDir(), "a.duckdb")
	if code, _, _ := runVerify(t, append(append([]string{"load", "-q", "--db", dbPath}, args...), source)...); code != exitOK {
		t.Fatalf("load: exit %d", code)
	}
	db, err := analytics.OpenReadOnly(dbPath)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	truth := map[string][]string{} // kind -> lines, or tool@day
	tb, err := os.ReadFile(filepath.Join(demo, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for l := range strings.SplitSeq(strings.TrimSpace(string(tb)), "\n") {
		var e struct {
			Line      int
			Kind, Day string
			ToolName  string `json:"tool_name"`
		}
		if err := json.Unmarshal([]byte(l), &e); err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprint(e.Line)
		if e.Kind == "name_collision" {
			key = e.ToolName + "@" + e.Day
		}
		truth[e.Kind] = append(truth[e.Kind], key)
	}
	planted := map[string][]string{
		"verify_forged_receipt.yml":      append(slices.Clone(truth["tampered_payload"]), truth["tampered_signature"]...),
		"verify_replayed_nonce.yml":      truth["replayed_nonce"],
		"verify_tool_drift.yml":          truth["schema_drift"],
		"verify_revoked_key.yml":         truth["revoked_key"],
		"verify_tool_name_collision.yml": truth["name_collision"],
	}

	rules := map[string]*sigmaRule{}
	files, _ := filepath.Glob(filepath.Join(dir, "*.yml"))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc any
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var r sigmaRule
		if err := yaml.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if err := schemas[r.Correlation != nil].Validate(doc); err != nil {
			t.Errorf("%s does not validate against the Sigma schema: %v", f, err)
		}
		rules[r.ID] = &r
		rules[filepath.Base(f)] = &r
	}
	twins := 0
	for name, want := range planted {
		r := rules[name]
		if r == nil {
			t.Errorf("no rule %s", name)
			continue
		}
		var got []string
		if c := r.Correlation; c != nil {
			base := rules[c.Rules[0]]
			if c.Type != "value_count" || c.Timespan != "1d" || base == nil {
				t.Fatalf("%s: correlation %+v not evaluated here", name, c)
			}
			values := map[string]map[string]bool{}
			for _, doc := range results {
				if !base.matches(doc) {
					continue
				}
				var key []string
				for _, g := range c.GroupBy {
					v, _ := field(doc, g)
					key = append(key, v)
				}
				at, _ := field(doc, "fields.issued_at")
				k := strings.Join(key, "|") + "@" + at[:min(10, len(at))]
				v, ok := field(doc, c.Condition.Field)
				if !ok {
					continue
				}
				if values[k] == nil {
					values[k] = map[string]bool{}
				}
				values[k][v] = true
			}
			for k, vs := range values {
				if len(vs) >= c.Condition.Gte {
					got = append(got, k)
				}
			}
		} else {
			for _, doc := range results {
				if r.matches(doc) {
					line, _ := field(doc, "line")
					got = append(got, line)
				}
			}
		}
		slices.Sort(got)
		want = slices.Sorted(slices.Values(want))
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s names %v, truth.jsonl plants %v", name, got, want)
		}
		twin := filepath.Join(dir, strings.TrimPrefix(strings.TrimSuffix(name, ".yml"), "verify_")+".sql")
		sqlText, err := os.ReadFile(twin)
		if err != nil {
			t.Errorf("%s: no SQL twin: %v", name, err)
			continue
		}
		twins++
		rows, err := db.SQL().QueryContext(context.Background(), string(sqlText))
		if err != nil {
			t.Fatalf("%s: %v", twin, err)
		}
		var fromSQL []string
		for rows.Next() {
			var a, b string
			if err := rows.Scan(&a, &b); err != nil {
				t.Fatal(err)
			}
			if r.Correlation != nil {
				fromSQL = append(fromSQL, a+"@"+b)
			} else {
				fromSQL = append(fromSQL, b)
			}
		}
		rows.Close()
		slices.Sort(fromSQL)
		if !slices.Equal(fromSQL, want) {
			t.Errorf("%s returns %v, truth.jsonl plants %v", twin, fromSQL, want)
		}
	}
	if twins < 4 {
		t.Errorf("%d rules with twins", twins)
	}
}
