package streamrun

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa65"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/sigalg"
)

// BenchmarkMLDSA65 measures, in one run, receipts verified per second on
// all cores for Asqav payload receipts signed with ML-DSA-65 (payloads of
// about 1 KiB; with the 3,309-byte signature in base64 a line is about
// 5.5 KiB):
//
//   - pipeline: the whole of `verify receipts -o json`: read the file from
//     disk, parse, canonicalize, resolve the key, verify, index and spool,
//     judge chains and nonces, and write JSON results to io.Discard;
//   - text: the same for the default text output, which writes a line
//     only for a receipt that is not PASS, and so neither hashes the
//     signature text nor encodes JSON;
//   - verifier: Verifier.VerifyWith alone, as the JSON output calls it,
//     over the lines held in memory, GOMAXPROCS workers: the receipts'
//     own cost, without reading, chains, nonces or output;
//   - bare: circl's mldsa65.Verify alone over the same canonical payloads
//     and signatures, keys parsed beforehand, GOMAXPROCS workers;
//   - floor: bare plus the library work that no implementation of that
//     output can leave out: decoding the base64 signature text (with the
//     vectorised decoder the verifier uses), the SHA-256 of that text (the
//     output's signature_sha256) and the SHA-256 of the canonical payload
//     (the chain hash). It bounds from above what any pipeline could
//     reach before it has parsed a byte.
//
// interleaved runs all five in every iteration and reports the rates of
// the pipeline, the text pipeline, the verifier and the floor as
// percentages of the bare rate, the figures that stay put when other work
// shares the machine; passes splits the text pipeline's time between its
// two passes:
//
//	go test -run '^$' -bench MLDSA65 -benchtime 5x ./verify/stream/
func BenchmarkMLDSA65(b *testing.B) {
	const n = 4000
	dir := b.TempDir()
	algs, err := receiptgen.ParseAlgs("ML-DSA-65")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := receiptgen.Generate(receiptgen.Config{Seed: 5, N: n, Algs: algs}, receiptgen.DirSink(dir)); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "receipts.jsonl")
	v := corpusVerifier(b, dir)
	inputs, lineBytes := bareInputs(b, dir)
	msgBytes := 0
	for _, in := range inputs {
		msgBytes += len(in.msg)
	}

	pipeline := func(b *testing.B) {
		// As `verify receipts -o json` does: encode on the verifying
		// goroutines, write in order.
		out := bufio.NewWriterSize(io.Discard, 1<<16)
		sum, err := Run(context.Background(), v, []Source{fileSource(path)}, Options{Render: RenderJSON}, func(r *Record) error {
			_, err := out.Write(r.Rendered)
			return err
		})
		if err != nil || sum.Pass != n {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	text := func(b *testing.B) {
		// As `verify receipts` does: no signature hash, no JSON, and
		// every receipt here is PASS, so nothing is written.
		sum, err := Run(context.Background(), v, []Source{fileSource(path)}, Options{OmitSignatureHash: true}, func(r *Record) error {
			if r.Verdict != verify.Pass {
				return fmt.Errorf("%s:%d: %s", r.Source, r.Line, r.Verdict)
			}
			return nil
		})
		if err != nil || sum.Pass != n {
			b.Fatalf("%+v %v", sum, err)
		}
	}
	// onAllCores runs check over every input on GOMAXPROCS workers.
	onAllCores := func(b *testing.B, check func(in *bareInput, sig []byte) bool) {
		var next, bad atomic.Int64
		var wg sync.WaitGroup
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				sig := make([]byte, 0, mldsa65.SignatureSize)
				for i := next.Add(1) - 1; i < int64(len(inputs)); i = next.Add(1) - 1 {
					if !check(&inputs[i], sig) {
						bad.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if bad.Load() != 0 {
			b.Fatalf("%d signatures did not verify", bad.Load())
		}
	}
	bare := func(b *testing.B) {
		onAllCores(b, func(in *bareInput, _ []byte) bool { return mldsa65.Verify(in.pk, in.msg, nil, in.sig) })
	}
	verifier := func(b *testing.B) {
		onAllCores(b, func(in *bareInput, _ []byte) bool {
			res, _ := v.VerifyWith(in.line, verify.VerifyOptions{DropSignature: true})
			return res.Verdict == verify.Pass
		})
	}
	floor := func(b *testing.B) {
		onAllCores(b, func(in *bareInput, sig []byte) bool {
			sig, err := sigalg.AppendBase64Any(sig, in.sigString)
			textSum, chainSum := sha256.Sum256(in.sigText), sha256.Sum256(in.msg)
			// Comparing the sums keeps the compiler from dropping them.
			return err == nil && textSum != chainSum && mldsa65.Verify(in.pk, in.msg, nil, sig)
		})
	}
	// spent is the wall and process CPU time of one kind of run.
	type spent struct{ wall, cpu time.Duration }
	rate := func(d time.Duration, runs int) float64 { return float64(n*runs) / d.Seconds() }

	b.Run("pipeline", func(b *testing.B) {
		for b.Loop() {
			pipeline(b)
		}
		b.ReportMetric(rate(b.Elapsed(), b.N), "receipts/s")
		b.ReportMetric(float64(lineBytes)/n, "B/line")
	})
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			bare(b)
		}
		b.ReportMetric(rate(b.Elapsed(), b.N), "receipts/s")
		b.ReportMetric(float64(msgBytes)/n, "B/payload")
	})
	// passes splits the text pipeline at its first report of the second
	// pass and gives the wall and process CPU time per receipt of each
	// part beside the bare verify's: where the stream's cost lies. The
	// first part holds reading, verifying, indexing and spooling, and the
	// index's merge between the passes.
	b.Run("passes", func(b *testing.B) {
		var first, second, bareT spent
		for b.Loop() {
			t0, c0 := time.Now(), processCPU()
			var t1 time.Time
			var c1 time.Duration
			sum, err := Run(context.Background(), v, []Source{fileSource(path)}, Options{OmitSignatureHash: true, Progress: func(p Progress) {
				if p.Pass == 2 && t1.IsZero() {
					t1, c1 = time.Now(), processCPU()
				}
			}}, func(*Record) error { return nil })
			if err != nil || sum.Pass != n || t1.IsZero() {
				b.Fatalf("%+v %v", sum, err)
			}
			first.wall, first.cpu = first.wall+t1.Sub(t0), first.cpu+c1-c0
			second.wall, second.cpu = second.wall+time.Since(t1), second.cpu+processCPU()-c1
			t0, c0 = time.Now(), processCPU()
			bare(b)
			bareT.wall, bareT.cpu = bareT.wall+time.Since(t0), bareT.cpu+processCPU()-c0
		}
		perReceipt := func(d time.Duration) float64 { return d.Seconds() * 1e6 / float64(n*b.N) }
		for _, r := range []struct {
			name string
			t    spent
		}{{"pass1", first}, {"pass2", second}, {"bare", bareT}} {
			b.ReportMetric(perReceipt(r.t.wall), r.name+"-wall-µs")
			b.ReportMetric(perReceipt(r.t.cpu), r.name+"-cpu-µs")
		}
	})
	// interleaved runs all five in every iteration, so all see the same
	// load on a shared machine, and reports each rate as a percentage of
	// the bare rate. It also reports the same ratios of the process's CPU
	// time (the *-cpu-% figures, where the platform tells it): CPU time
	// per receipt moves less than wall time when other work shares the
	// machine, though only wall time counts for the goal.
	b.Run("interleaved", func(b *testing.B) {
		var tp, tt, tv, tb, tf spent
		timed := func(total *spent, run func(*testing.B)) {
			t0, c0 := time.Now(), processCPU()
			run(b)
			total.wall += time.Since(t0)
			total.cpu += processCPU() - c0
		}
		for b.Loop() {
			timed(&tp, pipeline)
			timed(&tb, bare)
			timed(&tt, text)
			timed(&tv, verifier)
			timed(&tf, floor)
		}
		b.ReportMetric(rate(tp.wall, b.N), "pipeline-receipts/s")
		b.ReportMetric(rate(tb.wall, b.N), "bare-receipts/s")
		for _, r := range []struct {
			name string
			t    spent
		}{{"pipeline", tp}, {"text", tt}, {"verifier", tv}, {"floor", tf}} {
			b.ReportMetric(100*tb.wall.Seconds()/r.t.wall.Seconds(), r.name+"-%-of-bare")
			if tb.cpu > 0 {
				b.ReportMetric(100*tb.cpu.Seconds()/r.t.cpu.Seconds(), r.name+"-cpu-%-of-bare")
			}
		}
	})
}

type bareInput struct {
	pk                      *mldsa65.PublicKey
	msg, sig, sigText, line []byte
	sigString               string // sigText as a string, as the verifier decodes it
}

// bareInputs extracts from dir/receipts.jsonl what the signature covers:
// the canonical payload bytes, the decoded signature and the parsed key,
// the signature's base64 text as carried, and the whole line.
func bareInputs(b *testing.B, dir string) ([]bareInput, int) {
	b.Helper()
	kd, err := receiptgen.LoadKeys(dir)
	if err != nil {
		b.Fatal(err)
	}
	pks := map[string]*mldsa65.PublicKey{}
	f, err := os.Open(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	var out []bareInput
	total := 0
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		total += len(line)
		doc, err := canon.Asqav().Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		p, s := doc.Get("payload"), doc.Get("signature")
		msg, err := canon.Asqav().Append(nil, p)
		if err != nil {
			b.Fatal(err)
		}
		sig, err := sigalg.DecodeBase64Any(s.Get("sig").Text)
		if err != nil {
			b.Fatal(err)
		}
		kid := s.Get("kid").Text
		pk := pks[kid]
		if pk == nil {
			key, err := kd.ResolveAsqav(kid, p.Get("agent_id").Text, p.Get("issuer_id").Text, p.Get("org_id").Text)
			if err != nil || key.Alg != sigalg.MLDSA65 {
				b.Fatalf("key %s: %v", kid, err)
			}
			pk = new(mldsa65.PublicKey)
			if err := pk.UnmarshalBinary(key.Public.Bytes()); err != nil {
				b.Fatal(err)
			}
			pks[kid] = pk
		}
		out = append(out, bareInput{pk: pk, msg: msg, sig: sig, sigText: []byte(s.Get("sig").Text), sigString: s.Get("sig").Text, line: bytes.Clone(line)})
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return out, total
}
