package analytics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
)

// ecsVersion is the Elastic Common Schema release the events follow; its
// gen_ai field set (beta) names the agent, tool and call.
const ecsVersion = "9.4.0"

// ecsSeverity is a row's severity as event.severity, the same numbers as
// OCSF's severity_id.
var ecsSeverity = map[severity.Severity]int{severity.Info: 1, severity.Low: 2, severity.Medium: 3, severity.High: 4}

// WriteECS writes each row of a finding table as one Elastic Common Schema
// event per line: an alert (event.kind) of category intrusion_detection,
// @timestamp its event_time, event.id its finding_id, rule.id and
// rule.name its finding and kind, the agent, tool and call under gen_ai,
// the receipt's file under log.file.path, its techniques under threat and
// tags, and the whole row under verify (a custom field set, as ECS
// allows).
func WriteECS(w io.Writer, t *table.Table, toolVersion string, failOn severity.Severity) error {
	for _, c := range []string{"finding", "severity", findingIDColumn, "event_time"} {
		if t.Col(c) < 0 {
			return fmt.Errorf("query %s is not a finding query (no %s column)", t.Name, c)
		}
	}
	bw := bufio.NewWriter(w)
	for _, r := range t.Rows {
		b, err := json.Marshal(ecsEvent(t, r, toolVersion, failOn))
		if err != nil {
			return err
		}
		bw.Write(b)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// ecsEvent is row r of t as a nested ECS document.
func ecsEvent(t *table.Table, r []any, toolVersion string, failOn severity.Severity) map[string]any {
	g := func(c string) string {
		if i := t.Col(c); i >= 0 {
			return table.Text(r[i])
		}
		return ""
	}
	name, kind := g("finding"), g("kind")
	rule := name
	if kind != "" {
		rule += "/" + kind
	}
	sev := t.RowSeverity(r)
	suppressed := baseline.IsSuppressed(t, r)
	var row bytes.Buffer
	row.Write(t.AppendRowJSON(nil, r))
	ev := map[string]any{
		"@timestamp": g("event_time"),
		"ecs":        map[string]any{"version": ecsVersion},
		"message":    name + ": " + describe(name, t, r),
		"event": map[string]any{
			"kind": "alert", "category": []string{"intrusion_detection"}, "type": []string{"info"},
			"severity": ecsSeverity[sev], "id": g(findingIDColumn), "action": rule,
			"dataset": "verify.findings", "module": "verify", "provider": "verify",
			"reason": describe(name, t, r),
		},
		"rule": map[string]any{
			"id": rule, "name": rule, "category": name, "ruleset": "verify",
			"reference": "https://github.com/receiptverify/verify/blob/main/queries/" + name + ".sql",
		},
		"observer": map[string]any{"vendor": "receiptverify", "product": "verify", "version": toolVersion},
		"labels": map[string]string{
			"severity":   sev.String(),
			"suppressed": fmt.Sprint(suppressed),
			"alert":      fmt.Sprint(sev >= failOn && !suppressed),
		},
		"verify": json.RawMessage(row.Bytes()),
	}
	genAI := map[string]any{}
	if v := g("agent_id"); v != "" {
		genAI["agent"] = map[string]any{"id": v}
	}
	tool := map[string]any{}
	if v := g("tool_name"); v != "" {
		tool["name"] = v
	}
	if v := g("action_id"); v != "" {
		tool["call"] = map[string]any{"id": v}
	}
	if len(tool) > 0 {
		genAI["tool"] = tool
	}
	if len(genAI) > 0 {
		ev["gen_ai"] = genAI
	}
	if v := g("source"); v != "" {
		ev["log"] = map[string]any{"file": map[string]any{"path": v}}
		if line := g("line"); line != "" {
			ev["labels"].(map[string]string)["line"] = line
		}
	}
	if v := g("tool_fingerprint"); v != "" {
		ev["related"] = map[string]any{"hash": []string{v}}
	}
	ts := techniquesOf(name, kind)
	tags := []string{"verify"}
	var ids, names, subIDs, subNames []string
	for _, tq := range ts {
		tags = append(tags, tq.ID)
		if tq.Framework != mitreATTACK {
			continue
		}
		parent, _, sub := strings.Cut(tq.ID, ".")
		techName, subName, _ := strings.Cut(tq.Name, ": ")
		ids, names = append(ids, parent), append(names, techName)
		if sub {
			subIDs, subNames = append(subIDs, tq.ID), append(subNames, subName)
		}
	}
	ev["tags"] = tags
	if len(ids) > 0 {
		technique := map[string]any{"id": ids, "name": names}
		if len(subIDs) > 0 {
			technique["subtechnique"] = map[string]any{"id": subIDs, "name": subNames}
		}
		ev["threat"] = map[string]any{"framework": "MITRE ATT&CK", "technique": technique}
	}
	return ev
}
