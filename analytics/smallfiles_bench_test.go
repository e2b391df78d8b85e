package analytics

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

// BenchmarkSmallFiles loads 2,000 receipts as 1,000 two-line files and as
// one file, each onto an empty database: many small files should cost
// what their lines cost.
func BenchmarkSmallFiles(b *testing.B) {
	c := genCorpus(b, "", receiptgen.Config{N: 2000, Seed: 3, Days: 2})
	data, err := os.ReadFile(c.receipts)
	if err != nil {
		b.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	dir := b.TempDir()
	var small []Input
	for i := 0; i+1 < len(lines); i += 2 {
		p := filepath.Join(dir, fmt.Sprintf("f%04d.jsonl", i/2))
		if err := os.WriteFile(p, []byte(lines[i]+lines[i+1]), 0o644); err != nil {
			b.Fatal(err)
		}
		small = append(small, fileInput(p))
	}
	for _, tc := range []struct {
		name string
		ins  []Input
	}{{"small", small}, {"one", []Input{fileInput(c.receipts)}}} {
		b.Run(tc.name, func(b *testing.B) {
			for range b.N {
				db, err := Open(filepath.Join(b.TempDir(), "audit.duckdb"))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := db.Load(context.Background(), c.v, tc.ins, LoadOptions{Schemas: c.schemas, TempDir: b.TempDir()}); err != nil {
					b.Fatal(err)
				}
				db.Close()
			}
		})
	}
}
