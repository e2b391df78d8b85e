package analytics

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/receiptgen"
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
