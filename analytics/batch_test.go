package analytics

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/rawpolicy"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestSmallFilesBatched loads many small files stored together (fileBatch)
// and, into another database, each in its own transaction (a test hook
// makes every file unbatchable): the databases, the summaries and the
// order files are reported in are the same, for files with values shared
// across them (replays, collisions), onto receipts stored before, and with
// a line delivered again, which stores its batch file by file.
func TestSmallFilesBatched(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 21, N: 280, Rate: 0.3, Days: 2})
	lines := readLines(t, c.receipts)
	dir := t.TempDir()
	hist := filepath.Join(dir, "hist.jsonl")
	writeLines(t, hist, lines[:80])
	split := func(name string, ls [][]byte) []string {
		var paths []string
		for i, n := 0, 0; i < len(ls); n++ {
			k := min(1+n%4, len(ls)-i)
			p := filepath.Join(dir, fmt.Sprintf("%s%03d.jsonl", name, n))
			writeLines(t, p, ls[i:i+k])
			paths = append(paths, p)
			i += k
		}
		return paths
	}
	first := split("a", lines[80:180])
	// The second set delivers a stored line again, in a file of its own.
	again := filepath.Join(dir, "again.jsonl")
	writeLines(t, again, [][]byte{lines[279], lines[88]}) // line 88 is the third of a stored file
	second := append(split("b", lines[180:279]), again)
	at := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, raw := range []rawpolicy.Policy{rawpolicy.Flagged, rawpolicy.All} {
		t.Run(fmt.Sprint(raw), func(t *testing.T) {
			batched, single := openTestDB(t), openTestDB(t)
			for _, set := range [][]string{{hist}, first, second} {
				var ins []Input
				for _, p := range set {
					ins = append(ins, fileInput(p))
				}
				load := func(db *DB, hook func(context.Context, *FileSummary) error) (LoadSummary, []string) {
					var order []string
					sum, err := db.Load(context.Background(), c.v, ins, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), At: at, Raw: raw,
						OnFile: func(fs FileSummary) { order = append(order, fs.Path) }, beforeCommit: hook})
					if err != nil {
						t.Fatal(err)
					}
					return sum, order
				}
				bs, bo := load(batched, nil)
				ss, so := load(single, func(context.Context, *FileSummary) error { return nil })
				if !reflect.DeepEqual(bs, ss) {
					t.Errorf("summaries differ:\nbatched %+v\nsingle  %+v", bs, ss)
				}
				if !reflect.DeepEqual(bo, so) {
					t.Errorf("files reported in another order:\nbatched %v\nsingle  %v", bo, so)
				}
				if b, s := dump(t, batched), dump(t, single); b != s {
					t.Fatalf("databases differ after %d files:\nbatched:\n%s\nsingle:\n%s", len(set), b, s)
				}
			}
			if n := queryInt(t, batched, "SELECT count(*) FROM receipts WHERE raw IS NOT NULL"); n == 0 {
				t.Error("no line stored: the flagged lines are not exercised")
			}
		})
	}
}
