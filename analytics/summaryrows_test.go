package analytics

import "testing"

// TestSummaryRows: the collisions and drift rows of one (tool,
// fingerprint) and severity are one summary row listing their kinds and
// counting the rows it stands for; others stay as they are.
func TestSummaryRows(t *testing.T) {
	row := func(finding, kind, tool, fp, sev, where string) findingRow {
		return findingRow{finding: finding, kind: kind, tool: tool, fingerprint: fp, severity: sev, where: where,
			what: finding + " " + kind, expected: "drift", rows: map[string]int{finding: 1}}
	}
	in := []findingRow{
		row("collisions", "collision (2 fingerprints)", "t", "f1", "high", ""),
		row("drift", "first_seen", "t", "f1", "high", "a:1"),
		row("drift", "unexpected_fingerprint", "t", "f1", "high", "a:1"),
		row("drift", "first_seen", "t", "f2", "high", "a:2"),
		row("drift", "first_seen", "t", "f1", "low", "a:3"),
		{finding: "replays", what: "nonce", rows: map[string]int{"replays": 1}},
	}
	out := summaryRows(in)
	if len(out) != 4 {
		t.Fatalf("%d rows, want 4: %+v", len(out), out)
	}
	g := out[0]
	if g.finding != "collisions, drift" || g.what != "collision (2 fingerprints), first_seen, unexpected_fingerprint; drift" ||
		g.where != "a:1" || g.rows["drift"] != 2 || g.rows["collisions"] != 1 || !g.summary {
		t.Errorf("summary row %+v", g)
	}
	if out[1].what != "drift first_seen" || out[1].summary || out[2].where != "a:3" || out[3].finding != "replays" {
		t.Errorf("other rows changed: %+v", out[1:])
	}
}
