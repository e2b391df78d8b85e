package analytics

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
)

// SARIF 2.1.0 (OASIS), the format CI systems and code-scanning views
// read: one run, one rule per finding kind, one result per row located at
// the receipt's file and line.
const (
	sarifVersion = "2.1.0"
	sarifSchema  = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string         `json:"id"`
	Name             string         `json:"name"`
	ShortDescription sarifMessage   `json:"shortDescription"`
	HelpURI          string         `json:"helpUri,omitempty"`
	Properties       sarifRuleProps `json:"properties"`
}

type sarifRuleProps struct {
	Tags []string `json:"tags,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId"`
	RuleIndex           int                `json:"ruleIndex"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          json.RawMessage    `json:"properties"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine int64 `json:"startLine"`
}

type sarifSuppression struct {
	Kind          string `json:"kind"`
	Justification string `json:"justification,omitempty"`
}

// sarifLevel maps a row's severity onto a SARIF result level.
var sarifLevel = map[severity.Severity]string{
	severity.High:   "error",
	severity.Medium: "warning",
	severity.Low:    "note",
	severity.Info:   "note",
}

// WriteSARIF writes the rows of finding tables (finding queries' results,
// as RunQuery gives them) as one SARIF 2.1.0 log: a rule per finding and
// kind (drift/session_change, failures), tagged with its techniques; a
// result per row at its source file and line (a collision row names no
// line and has no location), level from its severity, its finding_id as
// the partial fingerprint a code-scanning view deduplicates on, a
// baseline's suppression as an external suppression, and the whole row
// under properties.
func WriteSARIF(w io.Writer, toolVersion string, tables ...*table.Table) error {
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{Name: "verify", Version: toolVersion,
			InformationURI: "https://github.com/receiptverify/verify"}},
		Results: []sarifResult{},
	}
	rules := map[string]int{}
	for _, t := range tables {
		for _, c := range []string{"finding", "severity", findingIDColumn} {
			if t.Col(c) < 0 {
				return fmt.Errorf("query %s is not a finding query (no %s column)", t.Name, c)
			}
		}
		for _, r := range t.Rows {
			run.Results = append(run.Results, sarifResultOf(t, r, &run.Tool.Driver, rules))
		}
	}
	b, err := json.MarshalIndent(sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// sarifResultOf is row r of t as a result, its rule added to d the first
// time it is seen.
func sarifResultOf(t *table.Table, r []any, d *sarifDriver, rules map[string]int) sarifResult {
	g := func(c string) any {
		if i := t.Col(c); i >= 0 {
			return r[i]
		}
		return nil
	}
	name, kind := table.Text(g("finding")), table.Text(g("kind"))
	id := name
	if kind != "" {
		id += "/" + kind
	}
	idx, ok := rules[id]
	if !ok {
		idx = len(d.Rules)
		rules[id] = idx
		rule := sarifRule{ID: id, Name: id, ShortDescription: sarifMessage{Text: "verify " + name + " finding" + map[bool]string{true: " of kind " + kind}[kind != ""]},
			HelpURI: "https://github.com/receiptverify/verify/blob/main/queries/" + name + ".sql"}
		for _, tq := range techniquesOf(name, kind) {
			rule.Properties.Tags = append(rule.Properties.Tags, tq.ID)
		}
		d.Rules = append(d.Rules, rule)
	}
	res := sarifResult{
		RuleID: id, RuleIndex: idx,
		Level:               sarifLevel[t.RowSeverity(r)],
		Message:             sarifMessage{Text: name + ": " + describe(name, t, r)},
		PartialFingerprints: map[string]string{"findingId/v1": table.Text(g(findingIDColumn))},
		Properties:          t.AppendRowJSON(nil, r),
	}
	if res.Level == "" {
		res.Level = "none"
	}
	if src := table.Text(g("source")); src != "" {
		// A path as a URI reference: spaces and '%' escaped.
		loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifArtifact{URI: (&url.URL{Path: src}).String()}}}
		if line, ok := g("line").(int64); ok && line > 0 {
			loc.PhysicalLocation.Region = &sarifRegion{StartLine: line}
		}
		res.Locations = []sarifLocation{loc}
	}
	if baseline.IsSuppressed(t, r) {
		res.Suppressions = []sarifSuppression{{Kind: "external", Justification: "baseline: " + table.Text(g("suppressed_by"))}}
	}
	return res
}
