package analytics

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/queries"
)

// ocsfSpec is testdata/ocsf/detection_finding_2004.json: what the OCSF
// 1.8.0 schema requires of a Detection Finding, copied from the schema's
// own files (the file says which).
type ocsfSpec struct {
	Class struct {
		CategoryUID int `json:"category_uid"`
		ClassUID    int `json:"class_uid"`
	} `json:"class"`
	Required []string `json:"required"`
	Objects  map[string]struct {
		Required   []string `json:"required"`
		AtLeastOne []string `json:"at_least_one"`
	} `json:"objects"`
	Enums    map[string][]int `json:"enums"`
	Integers []string         `json:"integers"`
}

// lookup follows a dotted path into a decoded JSON object.
func lookup(ev map[string]any, path string) (any, bool) {
	var cur any = ev
	for p := range strings.SplitSeq(path, ".") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[p]; !ok || cur == nil {
			return nil, false
		}
	}
	return cur, true
}

// checkOCSF lists what an event lacks or gets wrong against spec.
func checkOCSF(spec *ocsfSpec, ev map[string]any) []string {
	var bad []string
	for _, a := range spec.Required {
		if _, ok := lookup(ev, a); !ok {
			bad = append(bad, "missing "+a)
		}
	}
	for obj, o := range spec.Objects {
		if _, ok := lookup(ev, obj); !ok {
			continue // whether it must be there is its parent's required list
		}
		for _, a := range o.Required {
			if _, ok := lookup(ev, obj+"."+a); !ok {
				bad = append(bad, "missing "+obj+"."+a)
			}
		}
		if len(o.AtLeastOne) > 0 && !slices.ContainsFunc(o.AtLeastOne, func(a string) bool { _, ok := lookup(ev, obj+"."+a); return ok }) {
			bad = append(bad, obj+": none of "+strings.Join(o.AtLeastOne, ", "))
		}
	}
	for _, a := range spec.Integers {
		if v, ok := lookup(ev, a); ok {
			if f, isNum := v.(float64); !isNum || f != float64(int64(f)) {
				bad = append(bad, a+" is not an integer")
			}
		}
	}
	for a, vals := range spec.Enums {
		if v, ok := lookup(ev, a); ok {
			if f, _ := v.(float64); !slices.Contains(vals, int(f)) {
				bad = append(bad, a+" not in its enum")
			}
		}
	}
	num := func(a string) int { v, _ := lookup(ev, a); f, _ := v.(float64); return int(f) }
	if num("class_uid") != spec.Class.ClassUID || num("category_uid") != spec.Class.CategoryUID {
		bad = append(bad, "not a Detection Finding")
	}
	if num("type_uid") != num("class_uid")*100+num("activity_id") {
		bad = append(bad, "type_uid is not class_uid * 100 + activity_id")
	}
	return bad
}

// TestOCSFEvents: every event of a report's findings.ocsf.jsonl, over a
// corpus with findings of every type and a baseline, has every attribute
// OCSF requires of a Detection Finding, of the right type and enum; its
// uid is the row's finding_id, its severity the row's, and a suppressed
// row is status Suppressed.
func TestOCSFEvents(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("testdata", "ocsf", "detection_finding_2004.json"))
	if err != nil {
		t.Fatal(err)
	}
	var spec ocsfSpec
	if err := json.Unmarshal(b, &spec); err != nil {
		t.Fatal(err)
	}
	attrs := readOCSFAttributes(t)
	if len(spec.Required) == 0 || spec.Class.ClassUID != 2004 {
		t.Fatalf("spec: %+v", spec)
	}
	rows := append(slices.Clone(fixtureRows), fixRow{line: 8, agent: "ag4", issuer: "org1", session: "s4", tool: "search", fp: "A", issued: "2026-11-02T12:00:00Z", verdict: "INCOMPLETE", reasons: "unknown_key"})
	db := fixtureDB(t, rows, fixtureExpected...)
	base, err := baseline.Parse("b.toml", []byte(fixtureBaseline))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-02", Dir: dir, ToolVersion: "test", OCSF: true, Baseline: base, Now: time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	files := readDir(t, dir)
	var ids []string
	for _, name := range queries.Findings() {
		for _, r := range readCSVBytes(t, files[name+".csv"]) {
			ids = append(ids, r["finding_id"]+" "+r["severity"]+" "+r["suppressed"])
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(files[oCSFFile]))
	sc.Buffer(nil, 1<<20)
	var got []string
	statuses := map[string]int{}
	pivoted := map[string]int{}
	pivots := func(ev map[string]any) {
		for _, f := range []string{"observables", "resources", "finding_info.attacks", "finding_info.tags"} {
			if v, ok := lookup(ev, f); ok && len(v.([]any)) > 0 {
				pivoted[f[strings.LastIndex(f, ".")+1:]]++
			}
		}
		name, _ := lookup(ev, "unmapped.finding")
		if name == "drift" || name == "collisions" {
			tags, _ := lookup(ev, "finding_info.tags")
			want := map[any]string{"drift": "SAFE-T1201", "collisions": "SAFE-T1004"}[name]
			if !strings.Contains(fmt.Sprint(tags), want) {
				t.Errorf("%s event without %s: %v", name, want, tags)
			}
		}
	}
	for sc.Scan() {
		var ev map[string]any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatal(err)
		}
		if bad := append(checkOCSF(&spec, ev), attrs.checkAttributes("detection_finding", ev)...); len(bad) > 0 {
			t.Errorf("event %s: %v", sc.Text(), bad)
		}
		pivots(ev)
		uid, _ := lookup(ev, "finding_info.uid")
		sev, _ := lookup(ev, "unmapped.severity")
		supp, _ := lookup(ev, "unmapped.suppressed")
		got = append(got, uid.(string)+" "+sev.(string)+" "+map[bool]string{true: "true", false: "false"}[supp == true])
		want := map[string]float64{"info": 1, "low": 2, "medium": 3, "high": 4}[sev.(string)]
		if s, _ := lookup(ev, "severity_id"); s != want {
			t.Errorf("severity_id %v for a %s row", s, sev)
		}
		st, _ := lookup(ev, "status")
		statuses[st.(string)]++
		if (st == "Suppressed") != (supp == true) {
			t.Errorf("status %v for suppressed %v", st, supp)
		}
	}
	if !slices.Equal(got, ids) || len(got) != sum.Total() {
		t.Errorf("events %v\nrows %v", got, ids)
	}
	for _, f := range []string{"observables", "resources", "attacks", "tags"} {
		if pivoted[f] == 0 {
			t.Errorf("no event with %s", f)
		}
	}
	if statuses["Suppressed"] != 2 || statuses["New"] == 0 {
		t.Errorf("statuses %v", statuses)
	}
	// The checker catches what it should.
	var ev map[string]any
	json.Unmarshal(bytes.SplitN(files[oCSFFile], []byte("\n"), 2)[0], &ev)
	delete(ev["metadata"].(map[string]any), "version")
	ev["type_uid"] = 2004.0
	if bad := checkOCSF(&spec, ev); len(bad) != 2 {
		t.Errorf("checker found %v in a broken event", bad)
	}
}
