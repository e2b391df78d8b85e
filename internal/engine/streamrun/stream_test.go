package streamrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
)

func memSource(name string, data []byte, lines bool) Source {
	return Source{Name: name, Lines: lines, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}}
}

func compact(t *testing.T, path string) []byte {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	for _, line := range strings.Split(string(raw), "\n") {
		buf.WriteString(strings.TrimSpace(line))
	}
	return buf.Bytes()
}

func chainVerifier(t *testing.T) *verify.Verifier {
	t.Helper()
	raw, err := os.ReadFile("../../../testdata/receipts/asqav-03-chain-link/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := keys.Load("jwks.json", raw)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := keys.NewDirectory(snap)
	v, err := verify.New(dir, verify.WithTime(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func run(t *testing.T, v *verify.Verifier, srcs ...Source) (Summary, []*verify.Result) {
	t.Helper()
	var out []*verify.Result
	sum, err := Run(context.Background(), v, srcs, Options{Workers: 2}, func(r *Record) error {
		out = append(out, r.Result)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return sum, out
}

// TestStreamChain: genesis and its successor in one stream both PASS; the
// successor alone starts its chain before the input (not checked, PASS),
// and after its predecessor's own predecessor it is a gap (FAIL); the
// successor delivered twice is one receipt, not a fork or a replay.
func TestStreamChain(t *testing.T) {
	v := chainVerifier(t)
	pred := compact(t, "../../../testdata/receipts/asqav-03-chain-link/predecessor.json")
	succ := compact(t, "../../../testdata/receipts/asqav-03-chain-link/receipt.json")
	join := func(lines ...[]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }

	sum, out := run(t, v, memSource("a.jsonl", join(pred, succ), true))
	if sum.Pass != 2 || len(out) != 2 || out[1].Axes.Of(verify.AxisChain).Status != verify.StatusPass {
		t.Fatalf("chain of two: %+v\n%+v", sum, out[1].Axes)
	}
	sum, out = run(t, v, memSource("b.jsonl", join(succ), true))
	if ax := out[0].Axes.Of(verify.AxisChain); sum.Pass != 1 || sum.ChainsOutside != 1 || ax.Status != verify.StatusSkipped || ax.Reason != verify.ReasonChainUnknown {
		t.Fatalf("chain starting before the input: %+v %+v", sum, out[0].Axes)
	}
	_, out = run(t, v, memSource("c.jsonl", join(pred, succ, succ), true))
	if out[1].Verdict != verify.Pass || out[2].Verdict != verify.Pass || out[2].Axes.Of(verify.AxisChain).Status != verify.StatusPass {
		t.Fatalf("delivered twice: %v / %+v", out[1].Verdict, out[2].Axes)
	}
}

// TestStreamCountsEveryLine: blank, garbage, too-long and good lines are
// each counted once, with file and line, and the run goes on.
func TestStreamCountsEveryLine(t *testing.T) {
	v := chainVerifier(t)
	pred := compact(t, "../../../testdata/receipts/asqav-03-chain-link/predecessor.json")
	var in bytes.Buffer
	in.Write(pred)
	in.WriteString("\n\n{not json\n")
	in.Write(bytes.Repeat([]byte("x"), 16<<20+10))
	in.WriteString("\n\x00\x01\x02binary\n")
	in.Write(pred[:len(pred)/2]) // truncated last line, no newline
	sum, out := run(t, v, memSource("mixed.jsonl", in.Bytes(), true),
		Source{Name: "missing.jsonl", Lines: true, Open: func() (io.ReadCloser, error) { return nil, os.ErrNotExist }})
	if sum.Lines != 6 || sum.Blank != 1 || sum.Pass != 1 || sum.Unreadable != 4 || sum.FilesFailed != 1 {
		t.Fatalf("summary %+v", sum)
	}
	wantLines := []int{1, 3, 4, 5, 6, 0}
	if len(out) != len(wantLines) {
		t.Fatalf("%d results, want %d", len(out), len(wantLines))
	}
	for i, r := range out {
		if r.Line != wantLines[i] {
			t.Errorf("result %d: line %d, want %d (%s)", i, r.Line, wantLines[i], r.Error)
		}
	}
	if !strings.Contains(out[2].Error, "longer than") {
		t.Errorf("too-long line: %q", out[2].Error)
	}
	// Every unreadable line and file carries the malformed reason, so the
	// reason counts add up to the unreadable ones.
	if got := sum.Reasons[verify.ReasonMalformed]; got != sum.Unreadable+int64(sum.FilesFailed) {
		t.Errorf("malformed reasons %d, want %d", got, sum.Unreadable+int64(sum.FilesFailed))
	}
}

// TestStreamInputChanged: when the records' bytes are wanted (KeepRaw, the
// input is read a second time), a source whose content differs between the
// passes (a file rewritten during the run) stops the run with an error
// naming the line, rather than attaching a result to the wrong record.
// Without KeepRaw the second pass reads only the spool: the results are
// those of the input as first read, whatever happened to it since.
func TestStreamInputChanged(t *testing.T) {
	v := chainVerifier(t)
	pred := compact(t, "../../../testdata/receipts/asqav-03-chain-link/predecessor.json")
	succ := compact(t, "../../../testdata/receipts/asqav-03-chain-link/receipt.json")
	join := func(lines ...[]byte) []byte { return append(bytes.Join(lines, []byte("\n")), '\n') }
	cases := map[string][2][]byte{
		"rewritten": {join(pred, succ), join(pred, pred)},
		"grown":     {join(pred, succ), join(pred, succ, succ)},
		"shrunk":    {join(pred, succ), join(pred)},
		"blanked":   {join(pred, succ), join(pred, []byte(" "))},
		// Same length, one byte changed: only the hash can tell.
		"edited": {join(pred, succ), join(pred, bytes.Replace(succ, []byte("a"), []byte("b"), 1))},
	}
	for name, versions := range cases {
		for _, keepRaw := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/keepraw=%v", name, keepRaw), func(t *testing.T) {
				opened := 0
				src := Source{Name: "a.jsonl", Lines: true, Open: func() (io.ReadCloser, error) {
					data := versions[min(opened, 1)]
					opened++
					return io.NopCloser(bytes.NewReader(data)), nil
				}}
				var out []*verify.Result
				sum, err := Run(context.Background(), v, []Source{src}, Options{Workers: 2, KeepRaw: keepRaw}, func(r *Record) error {
					out = append(out, r.Result)
					return nil
				})
				if keepRaw {
					if !errors.Is(err, ErrInputChanged) {
						t.Fatalf("want the input-changed error, got %v", err)
					}
					return
				}
				if err != nil || sum.Pass != 2 || len(out) != 2 || out[1].Axes.Of(verify.AxisChain).Status != verify.StatusPass {
					t.Fatalf("want the two receipts as first read, chained: %v %+v", err, sum)
				}
			})
		}
	}
}

// failingReader gives data and then err, as a gzip stream cut short does.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestStreamReadError: a source that fails while being read (a truncated
// gzip file) keeps the lines read whole before the failure; the line the
// failure cut short is not verified but named in the file's error; the
// file counts as unreadable, in both passes' reading of it.
func TestStreamReadError(t *testing.T) {
	v := chainVerifier(t)
	pred := compact(t, "../../../testdata/receipts/asqav-03-chain-link/predecessor.json")
	whole := append(bytes.Clone(pred), "\n\n"...)
	errCut := errors.New("unexpected EOF")
	for _, tt := range []struct {
		name, data, wantErr string
		wantLines           int64
		wantLine            int
	}{
		{"mid-line", string(whole) + string(pred[:100]), "read error in line 3, cutting it short: unexpected EOF", 2, 3},
		{"between lines", string(whole), "read error after line 2: unexpected EOF", 2, 3},
	} {
		for _, keepRaw := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/keepraw=%v", tt.name, keepRaw), func(t *testing.T) {
				src := Source{Name: "cut.jsonl.gz", Lines: true, Open: func() (io.ReadCloser, error) {
					return io.NopCloser(&failingReader{data: []byte(tt.data), err: errCut}), nil
				}}
				var out []*verify.Result
				sum, err := Run(context.Background(), v, []Source{src}, Options{Workers: 2, KeepRaw: keepRaw}, func(r *Record) error {
					out = append(out, r.Result)
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if sum.Lines != tt.wantLines || sum.Pass != 1 || sum.Blank != 1 || sum.Unreadable != 0 || sum.FilesFailed != 1 {
					t.Fatalf("summary %+v", sum)
				}
				last := out[len(out)-1]
				if len(out) != 2 || last.Line != tt.wantLine || last.Verdict != verify.Unreadable || last.Error != tt.wantErr {
					t.Fatalf("%d results, last %s:%d %s %q", len(out), last.Source, last.Line, last.Verdict, last.Error)
				}
			})
		}
	}
}

// TestBatchesBoundBytes: a batch closes at batchRecords records or once
// its lines reach batchBytes, so that long lines (up to 16 MiB each) do not
// put gigabytes in flight; every record is handed out once, in order.
func TestBatchesBoundBytes(t *testing.T) {
	var sizes []int
	for range 30 {
		sizes = append(sizes, 100<<10)
	}
	sizes = append(sizes, 4<<20, 3<<20)
	for range 200 {
		sizes = append(sizes, 10)
	}
	produce := func(add func(*record) bool) error {
		for i, n := range sizes {
			if !add(&record{kind: recordLine, line: i + 1, raw: make([]byte, n)}) {
				return nil
			}
		}
		return nil
	}
	next := 1
	err := batchAll(produce, nil, func(b *batch) bool {
		total := 0
		for _, r := range b.recs {
			if r.line != next {
				t.Fatalf("record %d handed out where %d was due", r.line, next)
			}
			next++
			total += len(r.raw)
		}
		last := len(b.recs[len(b.recs)-1].raw)
		if len(b.recs) > batchRecords || total-last >= batchBytes {
			t.Errorf("batch of %d records, %d bytes (the last line %d)", len(b.recs), total, last)
		}
		return true
	})
	if err != nil || next != len(sizes)+1 {
		t.Fatalf("%v; %d records handed out, want %d", err, next-1, len(sizes))
	}
}

// TestRunStopsWhenCancelledOrEmitFails: a run cancelled at any point of
// either pass, or whose emit fails at any record, returns promptly with
// that error; before, a batch queued for writing but never handed to a
// worker could make it wait for ever. 4,000 records are some 60 batches
// of batchRecords, five times what two workers hold in flight, and the
// stops fall at 20 points of each kind, 180 records apart (not a multiple
// of a batch).
func TestRunStopsWhenCancelledOrEmitFails(t *testing.T) {
	v := chainVerifier(t)
	in := bytes.Repeat([]byte("{}\n"), 4_000)
	errEmit := errors.New("output failed")
	for i := range 60 {
		ctx, cancel := context.WithCancel(context.Background())
		stopAt := i * 60
		emitted := 0
		done := make(chan error, 1)
		opts := Options{Workers: 2}
		if i%3 == 2 { // in the first pass, as the records are verified
			opts.Progress = func(p Progress) {
				if p.Pass == 1 && p.Records >= int64(stopAt) {
					cancel()
				}
			}
		}
		go func() {
			_, err := Run(ctx, v, []Source{memSource("a.jsonl", in, true)}, opts, func(*Record) error {
				emitted++
				switch {
				case i%3 == 0 && emitted == stopAt:
					cancel()
				case i%3 == 1 && emitted == stopAt:
					return errEmit
				}
				return nil
			})
			done <- err
		}()
		select {
		case err := <-done:
			want := context.Canceled
			if i%3 == 1 {
				want = errEmit
			}
			if i > 2 && !errors.Is(err, want) {
				t.Errorf("case %d, stop at record %d: %v, want %v", i, stopAt, err, want)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("case %d, stop at record %d: the run did not return", i, stopAt)
		}
		cancel()
	}
}
