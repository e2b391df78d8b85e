package analytics

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
)

// oCSFVersion is the OCSF schema release the events follow.
const oCSFVersion = "1.8.0"

// OCSF Detection Finding (class 2004 in category 2, Findings), activity
// Create: the numbers WriteOCSF writes.
const (
	ocsfCategoryUID = 2
	ocsfClassUID    = 2004
	ocsfActivityID  = 1
	ocsfTypeUID     = ocsfClassUID*100 + ocsfActivityID
)

// ocsfSeverity maps a Severity onto OCSF severity_id and its caption.
var ocsfSeverity = map[severity.Severity]struct {
	id      int
	caption string
}{
	severity.Info:   {1, "Informational"},
	severity.Low:    {2, "Low"},
	severity.Medium: {3, "Medium"},
	severity.High:   {4, "High"},
}

type ocsfEvent struct {
	ActivityID   int              `json:"activity_id"`
	ActivityName string           `json:"activity_name"`
	CategoryUID  int              `json:"category_uid"`
	CategoryName string           `json:"category_name"`
	ClassUID     int              `json:"class_uid"`
	ClassName    string           `json:"class_name"`
	TypeUID      int              `json:"type_uid"`
	TypeName     string           `json:"type_name"`
	SeverityID   int              `json:"severity_id"`
	Severity     string           `json:"severity"`
	StatusID     int              `json:"status_id"`
	Status       string           `json:"status"`
	StatusDetail string           `json:"status_detail,omitempty"`
	Time         int64            `json:"time"`
	Message      string           `json:"message"`
	IsAlert      bool             `json:"is_alert"`
	Metadata     ocsfMetadata     `json:"metadata"`
	FindingInfo  ocsfFindingInfo  `json:"finding_info"`
	Observables  []ocsfObservable `json:"observables,omitempty"`
	Resources    []ocsfResource   `json:"resources,omitempty"`
	Unmapped     json.RawMessage  `json:"unmapped"`
}

// ocsfObservable is one fact of a row a SIEM pivots on (OCSF observable).
type ocsfObservable struct {
	Name   string `json:"name"`
	TypeID int    `json:"type_id"`
	Type   string `json:"type"`
	Value  string `json:"value"`
}

// ocsfResource is the tool a row is about (OCSF resource_details).
type ocsfResource struct {
	Name string `json:"name"`
	Type string `json:"type"`
	UID  string `json:"uid,omitempty"`
}

// ocsfObservables are the row columns written as observables, with their
// OCSF observable type: the dictionary's Hash and File Path types where
// they fit, Other (99) for the agent, tool and action ids, which OCSF
// 1.8.0 has no observable type for.
var ocsfObservables = []struct {
	column string
	typeID int
	typ    string
}{
	{"agent_id", 99, "Other"},
	{"issuer_id", 99, "Other"},
	{"tool_name", 99, "Other"},
	{"action_id", 99, "Other"},
	{"tool_fingerprint", 8, "Hash"},
	{"source", 45, "File Path"},
}

type ocsfMetadata struct {
	Version string      `json:"version"`
	Product ocsfProduct `json:"product"`
	LogName string      `json:"log_name"`
	UID     string      `json:"uid"`
}

type ocsfProduct struct {
	Name       string `json:"name"`
	VendorName string `json:"vendor_name"`
	Version    string `json:"version,omitempty"`
}

type ocsfFindingInfo struct {
	UID           string       `json:"uid"`
	Title         string       `json:"title"`
	Desc          string       `json:"desc"`
	Types         []string     `json:"types"`
	Analytic      ocsfAnalytic `json:"analytic"`
	FirstSeenTime int64        `json:"first_seen_time,omitempty"`
	LastSeenTime  int64        `json:"last_seen_time,omitempty"`
	Attacks       []ocsfAttack `json:"attacks,omitempty"`
	Tags          []ocsfTag    `json:"tags,omitempty"`
}

// ocsfAttack is a MITRE ATT&CK technique of the finding (techniquesOf).
type ocsfAttack struct {
	Technique    ocsfTechnique  `json:"technique"`
	SubTechnique *ocsfTechnique `json:"sub_technique,omitempty"`
}

type ocsfTechnique struct {
	UID    string `json:"uid"`
	Name   string `json:"name"`
	SrcURL string `json:"src_url,omitempty"`
}

// ocsfTag is one technique id of the finding, named by its framework, so
// that SAFE-MCP and OWASP ids, which attacks cannot hold, are searchable
// too.
type ocsfTag struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type ocsfAnalytic struct {
	Name   string `json:"name"`
	TypeID int    `json:"type_id"`
	Type   string `json:"type"`
}

// WriteOCSF writes each row of a finding table (a finding query's result,
// with finding, severity, finding_id and event_time columns) as one OCSF
// Detection Finding event per line: severity_id from the row's severity,
// finding_info.uid its finding_id, time its event_time (milliseconds),
// status Suppressed for a row a baseline suppresses (New otherwise),
// is_alert for a row at failOn or above that is not suppressed, the query
// file as the analytic, and the whole row under unmapped.
func WriteOCSF(w io.Writer, t *table.Table, toolVersion string, failOn severity.Severity) error {
	for _, c := range []string{"finding", "severity", findingIDColumn, "event_time"} {
		if t.Col(c) < 0 {
			return fmt.Errorf("query %s is not a finding query (no %s column)", t.Name, c)
		}
	}
	bw := bufio.NewWriter(w)
	for _, r := range t.Rows {
		g := func(c string) any {
			if i := t.Col(c); i >= 0 {
				return r[i]
			}
			return nil
		}
		name := table.Text(g("finding"))
		sev := ocsfSeverity[t.RowSeverity(r)]
		if sev.id == 0 {
			sev.caption = "Unknown"
		}
		id := table.Text(g(findingIDColumn))
		title := name
		for _, c := range []string{"kind", "reasons", "tool_name"} {
			if v := table.Text(g(c)); v != "" {
				title += " " + v
			}
		}
		e := ocsfEvent{
			ActivityID: ocsfActivityID, ActivityName: "Create",
			CategoryUID: ocsfCategoryUID, CategoryName: "Findings",
			ClassUID: ocsfClassUID, ClassName: "Detection Finding",
			TypeUID: ocsfTypeUID, TypeName: "Detection Finding: Create",
			SeverityID: sev.id, Severity: sev.caption,
			StatusID: 1, Status: "New",
			Time:    millis(g("event_time")),
			Message: title + ": " + describe(name, t, r),
			IsAlert: t.RowSeverity(r) >= failOn && !baseline.IsSuppressed(t, r),
			Metadata: ocsfMetadata{Version: oCSFVersion, LogName: name, UID: id,
				Product: ocsfProduct{Name: "verify", VendorName: "receiptverify", Version: toolVersion}},
			FindingInfo: ocsfFindingInfo{UID: id, Title: title, Desc: describe(name, t, r),
				Types:         slices.DeleteFunc([]string{name, table.Text(g("kind"))}, func(s string) bool { return s == "" }),
				Analytic:      ocsfAnalytic{Name: "queries/" + name + ".sql", TypeID: 1, Type: "Rule"},
				FirstSeenTime: millis(g("first_seen")), LastSeenTime: millis(g("last_seen"))},
			Unmapped: t.AppendRowJSON(nil, r),
		}
		e.FindingInfo.Attacks, e.FindingInfo.Tags = ocsfTechniques(techniquesOf(name, table.Text(g("kind"))))
		for _, o := range ocsfObservables {
			if v := table.Text(g(o.column)); v != "" {
				e.Observables = append(e.Observables, ocsfObservable{Name: o.column, TypeID: o.typeID, Type: o.typ, Value: v})
			}
		}
		if tool := table.Text(g("tool_name")); tool != "" {
			e.Resources = []ocsfResource{{Name: tool, Type: "MCP tool", UID: table.Text(g("tool_fingerprint"))}}
		}
		if baseline.IsSuppressed(t, r) {
			e.StatusID, e.Status, e.StatusDetail = 3, "Suppressed", "baseline: "+table.Text(g("suppressed_by"))
		}
		var line bytes.Buffer
		enc := json.NewEncoder(&line)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(e); err != nil {
			return err
		}
		bw.Write(line.Bytes())
	}
	return bw.Flush()
}

// ocsfTechniques is ts as OCSF attacks (the ATT&CK ones, a sub-technique
// under its technique) and tags (every one).
func ocsfTechniques(ts []technique) (attacks []ocsfAttack, tags []ocsfTag) {
	for _, t := range ts {
		tags = append(tags, ocsfTag{Name: t.Framework, Value: t.ID})
		if t.Framework != mitreATTACK {
			continue
		}
		parent, _, sub := strings.Cut(t.ID, ".")
		a := ocsfAttack{Technique: ocsfTechnique{UID: parent, Name: t.Name, SrcURL: t.URL}}
		if sub {
			name, subName, _ := strings.Cut(t.Name, ": ")
			a.Technique.Name, a.Technique.SrcURL = name, "https://attack.mitre.org/techniques/"+parent+"/"
			a.SubTechnique = &ocsfTechnique{UID: t.ID, Name: subName, SrcURL: t.URL}
		}
		attacks = append(attacks, a)
	}
	return attacks, tags
}

// millis is a TIMESTAMP value in milliseconds since the epoch (OCSF
// timestamp_t), 0 for anything else.
func millis(v any) int64 {
	if t, ok := v.(time.Time); ok {
		return t.UnixMilli()
	}
	return 0
}
