package analytics

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// TestChainsAcrossLoads: an archive loaded in two parts (yesterday's file,
// then today's) judges chains and nonces as one load of the whole does.
// Without the archive's help, each chain crossing the cut would read as an
// absent predecessor; a fork or a nonce replayed across the cut would go
// unseen.
func TestChainsAcrossLoads(t *testing.T) {
	c := genCorpus(t, "", receiptgen.Config{Seed: 5, N: 600, Rate: 0.06, Days: 4})
	raw, err := os.ReadFile(c.receipts)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(raw), "\n"), "\n")
	dir := t.TempDir()
	first, second := filepath.Join(dir, "part1.jsonl"), filepath.Join(dir, "part2.jsonl")
	cut := len(lines) / 2
	if err := os.WriteFile(first, []byte(strings.Join(lines[:cut], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(strings.Join(lines[cut:], "")), 0o644); err != nil {
		t.Fatal(err)
	}

	whole := openTestDB(t)
	mustLoad(t, whole, c.v, c.schemas, first, second)
	parts := openTestDB(t)
	mustLoad(t, parts, c.v, c.schemas, first)
	mustLoad(t, parts, c.v, c.schemas, second)

	q := `SELECT source, line, verdict, array_to_string(reasons, ',') FROM receipts ORDER BY source, line`
	a, err := whole.SQL().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	b, err := parts.SQL().Query(q)
	if err != nil {
		t.Fatal(err)
	}
	wantText, gotText := rowsText(t, a), rowsText(t, b)
	if wantText != gotText {
		t.Fatalf("two loads judge chains differently from one:\n--- one load\n%s\n--- two loads\n%s", wantText, gotText)
	}
	if n := queryInt(t, parts, `SELECT count(*) FROM receipts WHERE source LIKE '%part2.jsonl' AND array_to_string(reasons, ',') LIKE '%chain_%'`); n == 0 {
		t.Fatal("no chain finding in the second part: the corpus does not exercise the cut")
	}
	if n := queryInt(t, parts, `SELECT count(*) FROM receipts r WHERE source LIKE '%part2.jsonl' AND list_contains(reasons, 'nonce_replay')
		AND EXISTS (SELECT 1 FROM receipts o WHERE o.nonce_key = r.nonce_key AND o.source LIKE '%part1.jsonl')`); n == 0 {
		t.Fatal("no nonce replayed across the cut: the corpus does not exercise it")
	}
}

// TestLateBreakAcrossLoads: a receipt that names the last receipt of
// another session, loaded alone before it, starts its chain before what
// is loaded and passes; the load that brings the receipt it names makes it
// a chain_break, as one load of both does.
func TestLateBreakAcrossLoads(t *testing.T) {
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
	named := regexp.MustCompile(`"line":(\d+),.*"kind":"chain_break".*\(line (\d+)\)`)
	m := named.FindStringSubmatch(string(truth))
	if m == nil {
		t.Fatal("no planted chain_break")
	}
	b, _ := strconv.Atoi(m[1])
	tail, _ := strconv.Atoi(m[2])
	dir := t.TempDir()
	later, earlier := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(later, []byte(lines[b-1]), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(earlier, []byte(lines[tail-1]), 0o644); err != nil {
		t.Fatal(err)
	}
	q := `SELECT verdict, array_to_string(reasons, ',') FROM receipts WHERE source LIKE '%a.jsonl'`
	judged := func(db *DB) string {
		t.Helper()
		rows, err := db.SQL().Query(q)
		if err != nil {
			t.Fatal(err)
		}
		return rowsText(t, rows)
	}
	parts := openTestDB(t)
	mustLoad(t, parts, c.v, c.schemas, later)
	if got := judged(parts); !strings.HasPrefix(got, "PASS") {
		t.Fatalf("alone, the receipt's chain starts before the load: %s, want PASS", got)
	}
	mustLoad(t, parts, c.v, c.schemas, earlier)
	whole := openTestDB(t)
	mustLoad(t, whole, c.v, c.schemas, later, earlier)
	if got, want := judged(parts), judged(whole); got != want || !strings.Contains(want, "chain_break") {
		t.Errorf("after the load of the receipt it names: %s, one load of both: %s (want chain_break)", got, want)
	}
}
