package shard

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// TestAttemptsOneWins: attempts of one shard at once, each in its own
// hidden directory, publish by rename: exactly one publishes, the others
// get ErrPublished and leave nothing behind, and the published directory
// is one attempt's whole (its manifest names its own parts, whose digests
// Open checks).
func TestAttemptsOneWins(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cfg := receiptgen.Config{Seed: 11, N: 300, Rate: 0.1, Days: 1, Start: start, Algs: receiptgen.Ed25519Only()}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	v, _, err := receiptgen.LoadVerifier(dir, start.AddDate(0, 0, 30))
	if err != nil {
		t.Fatal(err)
	}
	input := filepath.Join(dir, "receipts.jsonl")
	plan := testPlan(t, input)
	out := filepath.Join(dir, "maps", "shard-0")
	src := []streamrun.Source{{Name: input, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(input) }}}
	const attempts = 4
	errs := make([]error, attempts)
	var ready, wg sync.WaitGroup
	ready.Add(attempts)
	for i := range attempts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := Create(out, plan, 0, plan.Trust)
			ready.Done()
			if err != nil {
				errs[i] = err
				return
			}
			ready.Wait() // every attempt under way before any publishes
			sum, err := streamrun.Map(context.Background(), v, src, streamrun.Options{Workers: 1}, w.Add)
			if err != nil {
				w.Abort()
				errs[i] = err
				return
			}
			errs[i] = w.Close(sum)
		}()
	}
	wg.Wait()
	won := 0
	for i, err := range errs {
		switch {
		case err == nil:
			won++
		case !errors.Is(err, ErrPublished):
			t.Errorf("attempt %d: %v", i, err)
		}
	}
	if won != 1 {
		t.Errorf("%d attempts published, want 1", won)
	}
	ents, err := os.ReadDir(filepath.Dir(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "shard-0" {
			t.Errorf("left beside the shard: %s", e.Name())
		}
	}
	if _, err := Open(context.Background(), plan, []string{out}, nil); err != nil {
		t.Errorf("the published shard: %v", err)
	}
	// A retry of the published shard changes nothing.
	if _, err := Create(out, plan, 0, plan.Trust); !errors.Is(err, ErrPublished) {
		t.Errorf("a retry of a published shard: %v, want ErrPublished", err)
	}
	// A killed attempt's directory does not block a retry, which
	// publishes and removes it.
	other := filepath.Join(dir, "maps", "shard-b")
	killed := filepath.Join(dir, "maps", ".shard-b.attempt-killed")
	if err := os.MkdirAll(killed, 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Create(other, plan, 0, plan.Trust)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := streamrun.Map(context.Background(), v, src, streamrun.Options{Workers: 1}, w.Add)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(sum); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(killed); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed attempt's directory is still there: %v", err)
	}
	if m, err := readManifest(other); err != nil || !strings.HasPrefix(m.Attempt, ".shard-b.attempt-") {
		t.Errorf("manifest: %v, %+v", err, m)
	}
}
