package analytics

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// sarifValidator is the SARIF 2.1.0 JSON schema, compiled.
func sarifValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "sarif", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("sarif-schema-2.1.0.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("sarif-schema-2.1.0.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fixtureFindings are the fixture's finding tables on 2026-11-02, the
// fixture's baseline applied: what the SIEM formats' tests write.
func fixtureFindings(t *testing.T) []*table.Table {
	t.Helper()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	base, err := baseline.Parse("b.toml", []byte(fixtureBaseline))
	if err != nil {
		t.Fatal(err)
	}
	var tables []*table.Table
	for _, name := range []string{"failures", "replays", "collisions", "drift", "rejects"} {
		tb, err := runQuery(context.Background(), db.SQL(), name, "2026-11-02")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := base.ApplyTo(tb, time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, tb)
	}
	return tables
}

// TestSARIFValidates: the findings of the fixture, a baseline applied, as
// one SARIF log that the SARIF 2.1.0 schema accepts, with a result per row
// at its file and line, rules tagged with their techniques, and the
// baseline's suppressions; a log the schema must refuse is refused.
func TestSARIFValidates(t *testing.T) {
	t.Parallel()
	tables := fixtureFindings(t)
	rows := 0
	for _, tb := range tables {
		rows += len(tb.Rows)
	}
	var out bytes.Buffer
	if err := WriteSARIF(&out, "test", tables...); err != nil {
		t.Fatal(err)
	}
	schema := sarifValidator(t)
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(out.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(doc); err != nil {
		t.Fatalf("SARIF does not validate: %v\n%s", err, out.Bytes())
	}
	var log struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID         string
						Properties struct{ Tags []string }
					}
				}
			}
			Results []struct {
				RuleID    string
				Level     string
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine int }
					}
				}
				Suppressions []struct{ Kind string }
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if len(run.Results) != rows || rows == 0 {
		t.Errorf("%d results for %d rows", len(run.Results), rows)
	}
	tags := map[string]string{}
	for _, r := range run.Tool.Driver.Rules {
		tags[r.ID] = strings.Join(r.Properties.Tags, " ")
	}
	if !strings.Contains(tags["drift/session_change"], "SAFE-T1201") || !strings.Contains(tags["collisions"], "SAFE-T1004") {
		t.Errorf("rule tags %v", tags)
	}
	suppressed, located := 0, 0
	for _, r := range run.Results {
		suppressed += len(r.Suppressions)
		if strings.HasPrefix(r.RuleID, "failures") {
			if l := r.Locations; len(l) != 1 || l[0].PhysicalLocation.ArtifactLocation.URI != "f1.jsonl" || l[0].PhysicalLocation.Region.StartLine == 0 || r.Level != "error" {
				t.Errorf("failure result %+v", r)
			}
			located++
		}
	}
	if suppressed != 2 || located != 2 {
		t.Errorf("%d suppressed, %d failures located", suppressed, located)
	}

	bad := bytes.Replace(out.Bytes(), []byte(`"level": "error"`), []byte(`"level": "fatal"`), 1)
	doc, _ = jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if schema.Validate(doc) == nil {
		t.Error("the schema accepts a result of level fatal")
	}
}
