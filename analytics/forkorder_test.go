package analytics

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestForksInEveryLoadOrder: a planted fork's later namer E, its first
// namer F and the chain up to their predecessor P, in three files loaded
// one at a time in every order, store what one load of the three stores
// (E read first): F links, E is the fork. A load that brings F, or P,
// after E revises E to FAIL chain_fork and records it in revisions.
func TestForksInEveryLoadOrder(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 5, N: 600, Rate: 0.06, Days: 4})
	raw, err := os.ReadFile(c.receipts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	truth, err := os.ReadFile(filepath.Join(c.dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fork := -1
	for _, l := range strings.Split(strings.TrimSpace(string(truth)), "\n") {
		var r receiptgen.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		if r.Kind == receiptgen.KindFork {
			fork = r.Line - 1
			break
		}
	}
	if fork < 0 {
		t.Fatal("no planted fork")
	}
	session := regexp.MustCompile(`"session_id":"[^"]*"`)
	step := regexp.MustCompile(`"step":(\d+)`)
	stepOf := func(l string) int {
		m := step.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("no step in %s", l)
		}
		var n int
		for _, c := range m[1] {
			n = n*10 + int(c-'0')
		}
		return n
	}
	sess, k := session.FindString(lines[fork]), stepOf(lines[fork])
	var first, chain []string
	for i, l := range lines {
		switch {
		case i == fork || session.FindString(l) != sess:
		case stepOf(l) == k:
			first = append(first, l)
		case stepOf(l) < k:
			chain = append(chain, l)
		}
	}
	if len(first) != 1 || len(chain) == 0 {
		t.Fatalf("fork at line %d: %d first namers, %d receipts before them", fork+1, len(first), len(chain))
	}
	dir := t.TempDir()
	e, f, p := filepath.Join(dir, "e.jsonl"), filepath.Join(dir, "f.jsonl"), filepath.Join(dir, "p.jsonl")
	for path, body := range map[string]string{e: lines[fork], f: first[0], p: strings.Join(chain, "")} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	q := `SELECT source, line, verdict, array_to_string(reasons, ',') FROM receipts ORDER BY source, line`
	one := openTestDB(t)
	mustLoad(t, one, c.v, c.schemas, e, f, p)
	rows, err := one.SQL().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	want := rowsText(t, rows)
	if !strings.Contains(want, e+"\t1\tFAIL\tchain_fork") || strings.Contains(want, f+"\t1\tFAIL") {
		t.Fatalf("one load: want %s the fork and %s linked:\n%s", e, f, want)
	}
	revised := 0
	for _, order := range [][]string{{e, f, p}, {e, p, f}, {f, e, p}, {f, p, e}, {p, e, f}, {p, f, e}} {
		db := openTestDB(t)
		for _, path := range order {
			mustLoad(t, db, c.v, c.schemas, path)
		}
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsText(t, rows); got != want {
			t.Errorf("loads %v store other rows than one load:\n--- one load\n%s--- loads\n%s", order, want, got)
		}
		revised += int(queryInt(t, db, `SELECT count(*) FROM revisions WHERE why LIKE 'chain_fork:%' AND source = $1`, e))
	}
	if revised == 0 {
		t.Error("no load order revised the fork: the orders do not test revisions")
	}
}
