package stream

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/toolschema"
)

// TestDemoCorpusGroundTruth verifies the generated demo archive (receiptgen
// --seed 7 --n 300 --rate 0.08) and requires every planted anomaly to be
// reported on its line with its reason, and nothing else: precision and
// recall 100%.
func TestDemoCorpusGroundTruth(t *testing.T) {
	dir := "../../testdata/demo"
	raw, err := os.ReadFile(filepath.Join(dir, "keys/jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	snap, err := keys.Load("jwks.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	kd, _ := keys.NewDirectory(snap)
	set := toolschema.NewSet()
	files, _ := filepath.Glob(filepath.Join(dir, "schemas/*.json"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if err := set.Add(toolschema.ServerName(f), b); err != nil {
			t.Fatal(err)
		}
	}
	v, err := verify.New(kd, verify.WithSchemas(set), verify.WithTime(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{} // line -> reason
	truth, _ := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(truth)), "\n") {
		var tr struct {
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &tr); err != nil {
			t.Fatal(err)
		}
		if tr.Line > 0 {
			want[tr.Line] = tr.Reason
		}
	}
	if len(want) == 0 {
		t.Fatal("no planted anomalies in truth.jsonl")
	}
	src := Source{Name: "receipts.jsonl", Lines: true, Open: func() (io.ReadCloser, error) {
		return os.Open(filepath.Join(dir, "receipts.jsonl"))
	}}
	got := map[int][]string{}
	sum, err := Run(context.Background(), v, []Source{src}, Options{}, func(r *verify.Result) error {
		for _, name := range verify.AxisOrder {
			if ax := r.Axes[name]; ax.Status == verify.StatusFail && name != verify.AxisExpiry {
				got[r.Line] = append(got[r.Line], string(ax.Reason))
			}
		}
		if r.Verdict == verify.Incomplete || r.Verdict == verify.Unreadable {
			t.Errorf("line %d: %s %v", r.Line, r.Verdict, r.Reasons)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for line, reason := range want {
		if len(got[line]) != 1 || got[line][0] != reason {
			t.Errorf("line %d: planted %s, reported %v", line, reason, got[line])
		}
	}
	for line, reasons := range got {
		if _, ok := want[line]; !ok {
			t.Errorf("line %d: reported %v, nothing planted", line, reasons)
		}
	}
	if sum.Receipts != 300 {
		t.Errorf("summary %+v", sum)
	}
}
