package canon

import (
	"testing"

	"github.com/gowebpki/jcs"
)

// The benchmarks canonicalize one ~1 KiB receipt-like document. Run them
// side by side (go test -bench . -benchmem ./verify/canon/) and compare
// ratios: absolute times drift on shared machines.
func benchDialect(b *testing.B, d *Dialect) {
	raw := readFile(b, "../../testdata/bench/receipt-1k.json")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		var err error
		if dst, err = d.AppendCanonical(dst[:0], raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRFC8785(b *testing.B)        { benchDialect(b, RFC8785) }
func BenchmarkAsqav(b *testing.B)          { benchDialect(b, Asqav) }
func BenchmarkAsqavCodePoint(b *testing.B) { benchDialect(b, AsqavCodePoint) }

// BenchmarkGowebpkiJCS is the baseline: github.com/gowebpki/jcs v1.0.2 on
// the same document.
func BenchmarkGowebpkiJCS(b *testing.B) {
	raw := readFile(b, "../../testdata/bench/receipt-1k.json")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	want, err := RFC8785.Canonicalize(raw)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := jcs.Transform(raw)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(want) {
			b.Fatalf("gowebpki/jcs output differs: %s", got)
		}
	}
}
