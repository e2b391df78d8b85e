package main

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/toolschema"
)

// scopeFields are the normalized fields a chain's scope is made of, for
// the formats scoped by them (Asqav: issuer, org, agent or session): a
// link across them is a chain break, and the page names the one that
// differs.
type scopeFields struct {
	Issuer, Org, Agent, Session string
}

func scopeOf(f verify.Fields) scopeFields {
	return scopeFields{Issuer: f.IssuerID, Org: f.OrgID, Agent: f.AgentID, Session: f.SessionID}
}

// fieldDiff is one scope field whose value differs between a receipt and
// the predecessor it links to.
type fieldDiff struct {
	Field       string `json:"field"`
	Receipt     string `json:"receipt"`
	Predecessor string `json:"predecessor"`
	At          string `json:"predecessor_at"` // FILE:LINE of the predecessor
}

// scopeDiffs lists the scope fields in which pred differs from r.
func scopeDiffs(r, pred scopeFields, at string) []fieldDiff {
	var out []fieldDiff
	add := func(name, a, b string) {
		if a != b {
			out = append(out, fieldDiff{Field: name, Receipt: a, Predecessor: b, At: at})
		}
	}
	add("issuer_id", r.Issuer, pred.Issuer)
	add("org_id", r.Org, pred.Org)
	add("agent_id", r.Agent, pred.Agent)
	add("session_id", r.Session, pred.Session)
	return out
}

// hasReason says whether res carries reason x.
func hasReason(res *verify.Result, x verify.Reason) bool {
	for _, r := range res.Reasons {
		if r == x {
			return true
		}
	}
	return false
}

// recordRef is the stream's "(record N)" in a chain or nonce note: the
// ordinal of the earlier receipt over the run. A run over one file counts
// every line, blank ones too, so N is that file's line N.
var recordRef = regexp.MustCompile(`\(record ([0-9]+)\)$`)

// notesWithLines rewrites the record numbers of res's chain and nonce
// notes as PATH:LINE, when the record is a line of path that was read.
func notesWithLines(res *verify.Result, path string, lines map[int]bool) {
	for _, name := range []verify.AxisName{verify.AxisChain, verify.AxisNonce} {
		ax := res.Axes.Of(name)
		m := recordRef.FindStringSubmatch(ax.Note)
		if m == nil {
			continue
		}
		n, err := strconv.Atoi(m[1])
		if err != nil || !lines[n] {
			continue
		}
		ax.Note = ax.Note[:len(ax.Note)-len(m[0])] + fmt.Sprintf("(%s:%d)", path, n)
		res.Axes.Set(name, ax)
	}
}

// toolContext is a drifted or unknown tool: what the expected schemas
// have under its name, and what to do about it.
type toolContext struct {
	Name        string            `json:"name"`
	Fingerprint string            `json:"fingerprint"`
	Expected    []toolschema.Tool `json:"expected"` // the servers exposing the name, with their fingerprints
	Next        string            `json:"next"`
}

// toolContextOf is the tool section of a receipt whose tool drifted or is
// unknown to the expected schemas; nil otherwise.
func toolContextOf(res *verify.Result, set *toolschema.Set) *toolContext {
	ax := res.Axes.Of(verify.AxisToolFingerprint)
	if ax.Reason != verify.ReasonToolDrift && ax.Reason != verify.ReasonToolUnknown {
		return nil
	}
	t := &toolContext{Name: res.Fields.ToolName, Fingerprint: res.Fields.ToolFingerprint, Expected: []toolschema.Tool{}}
	if set != nil {
		for _, x := range set.Tools() {
			if x.Name == t.Name {
				t.Expected = append(t.Expected, x)
			}
		}
	}
	t.Next = "if this schema is the one meant, add it to --schemas, or accept the day's drift rows with " +
		"verify baseline --db FILE --day " + dayOf(res) + "; --strict-schemas fails such receipts instead of reporting them"
	return t
}

// dayOf is the UTC day of res's issued_at, or DAY when it has none.
func dayOf(res *verify.Result) string {
	if len(res.Fields.IssuedAt) >= len("2006-01-02") {
		return res.Fields.IssuedAt[:len("2006-01-02")]
	}
	return "DAY"
}

// replayOf is the earlier receipt a replay row says this one repeats.
type replayOf struct {
	Kind     string `json:"kind"`
	At       string `json:"at"` // FILE:LINE
	ActionID string `json:"action_id,omitempty"`
}

// replaysOf reads the earlier receipt out of replay finding rows.
func replaysOf(found []findingRow) []replayOf {
	var out []replayOf
	for _, f := range found {
		if f.Finding != "replays" {
			continue
		}
		var row struct {
			Kind        string `json:"kind"`
			FirstSource string `json:"first_source"`
			FirstLine   *int64 `json:"first_line"`
			FirstAction string `json:"first_action_id"`
		}
		if json.Unmarshal(f.Row, &row) != nil || row.FirstSource == "" || row.FirstLine == nil {
			continue
		}
		out = append(out, replayOf{Kind: row.Kind, At: fmt.Sprintf("%s:%d", row.FirstSource, *row.FirstLine), ActionID: row.FirstAction})
	}
	return out
}

// joinTools lists tools as "server (fingerprint)".
func joinTools(ts []toolschema.Tool) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Server + " (" + t.Fingerprint + ")"
	}
	return strings.Join(parts, ", ")
}
