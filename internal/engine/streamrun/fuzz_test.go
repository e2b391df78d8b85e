package streamrun

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify"
)

// FuzzStream runs whole streams of any bytes, read as JSON Lines or as one
// document, with the index on disk in tiny runs, and holds every run to
// what the summary promises: each line read is counted once, as blank,
// unreadable or verified; every line that is not blank gets one result, in
// input order, under its own number; and a verified line is judged as the
// verifier judges it alone, but for its chain and nonce, which only the
// stream can judge. Seeds mix real receipts (chains, an ML-DSA-65
// signature, planted anomalies) with broken and garbage lines.
//
//	go test -run '^$' -fuzz '^FuzzStream$' -fuzztime 60s ./verify/stream/
func FuzzStream(f *testing.F) {
	dir := "../../../testdata/demo"
	v := corpusVerifier(f, dir)
	demo, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(demo, []byte("\n"))
	first := bytes.Join(lines[:4], nil)
	f.Add(first, uint8(0))
	f.Add(first, uint8(3))
	f.Add(append(bytes.Clone(first), first...), uint8(1)) // every receipt twice: forks and replays
	f.Add(bytes.Join([][]byte{lines[7], []byte("\r\n\n  \n{\"payload\":1}\n"), lines[3][:200], []byte("\x00\xff\n"), lines[2]}, nil), uint8(2))
	f.Add([]byte("{}\n[]\n\"x\"\n1e999\n{\"a\":1,\"a\":2}\n"), uint8(0))
	f.Add([]byte(""), uint8(0))
	f.Add([]byte("\n"), uint8(1))
	f.Add(lines[5][:len(lines[5])-1], uint8(0)) // no final newline
	// The demo's other formats: the first hash-mode record, DSSE envelope
	// and agentreceipts chain.
	var mixed [][]byte
	for _, marker := range []string{`"mode":"hash"`, `"payloadType"`, `"AgentReceipt"`} {
		n := 0
		for _, l := range lines {
			if bytes.Contains(l, []byte(marker)) && n < 3 {
				mixed = append(mixed, l)
				n++
			}
		}
	}
	f.Add(bytes.Join(mixed, nil), uint8(0))
	pretty, err := os.ReadFile("../../../testdata/receipts/asqav-03-chain-link/receipt.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(pretty, uint8(4)) // one document over many lines
	f.Add(first, uint8(4))  // several documents: one record, unreadable
	f.Add([]byte(" \n"), uint8(6))

	tmp := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		opts := Options{Workers: 2, TempDir: tmp, limits: indexLimits{entries: 3, judgments: 2, priorBatch: 1}}
		if mode&1 != 0 {
			opts.KeepRaw = true
		}
		if mode&2 != 0 {
			opts.Render = RenderJSON
		}
		jsonLines := mode&4 == 0
		want := inputLines(data)
		if !jsonLines { // the whole input is one record, blank or not
			want = []inputLine{{text: data}}
		}
		var results []*verify.Result
		sum, err := Run(context.Background(), v, []Source{memSource("fuzz.jsonl", data, jsonLines)}, opts, func(r *Record) error {
			if opts.Render != nil && len(r.Rendered) == 0 {
				t.Errorf("line %d: nothing rendered", r.Line)
			}
			if opts.KeepRaw && r.Raw != nil {
				// Raw is the input's bytes at Offset, exactly.
				if end := r.Offset + int64(len(r.Raw)); r.Offset < 0 || end > int64(len(data)) || !bytes.Equal(data[r.Offset:end], r.Raw) {
					t.Errorf("line %d: Raw is not the input's bytes at offset %d", r.Line, r.Offset)
				}
			}
			results = append(results, r.Result)
			return nil
		})
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if sum.Lines != int64(len(want)) {
			t.Fatalf("summary counts %d lines, input has %d", sum.Lines, len(want))
		}
		if sum.Blank+sum.Unreadable+sum.Receipts != sum.Lines || sum.Pass+sum.Fail+sum.Incomplete != sum.Receipts {
			t.Fatalf("summary does not add up: %+v", sum)
		}
		next := 0
		for _, r := range results {
			for next < len(want) && want[next].blank {
				next++
			}
			if next == len(want) {
				t.Fatalf("result for line %d after the last line that is not blank", r.Line)
			}
			if r.Line != next+1 || r.Source != "fuzz.jsonl" {
				t.Fatalf("result for %s:%d, want fuzz.jsonl:%d", r.Source, r.Line, next+1)
			}
			if r.Verdict != verify.Unreadable {
				alone, _ := v.Verify(want[next].text)
				sameApartFromStream(t, r, alone)
			}
			next++
		}
		for ; next < len(want); next++ {
			if !want[next].blank {
				t.Fatalf("line %d has no result", next+1)
			}
		}
	})
}

type inputLine struct {
	text  []byte
	blank bool
}

// inputLines splits data as the stream reads it: at '\n', without a
// trailing '\r', the text after the last newline a line only if it is not
// empty.
func inputLines(data []byte) []inputLine {
	var out []inputLine
	for len(data) > 0 {
		line, rest, found := bytes.Cut(data, []byte("\n"))
		if found {
			line = bytes.TrimSuffix(line, []byte("\r"))
		}
		out = append(out, inputLine{text: line, blank: len(bytes.TrimSpace(line)) == 0})
		data = rest
	}
	return out
}

// sameApartFromStream requires a stream's result to have the format and
// every axis but chain and nonce of the verifier's result for the same
// line alone.
func sameApartFromStream(t *testing.T, got, alone *verify.Result) {
	t.Helper()
	if got.Format != alone.Format {
		t.Fatalf("line %d: format %s in the stream, %s alone", got.Line, got.Format, alone.Format)
	}
	for _, name := range verify.AxisOrder() {
		if name == verify.AxisChain || name == verify.AxisNonce {
			continue
		}
		if g, a := got.Axes.Of(name), alone.Axes.Of(name); g != a {
			t.Fatalf("line %d: %s is %+v in the stream, %+v alone", got.Line, name, g, a)
		}
	}
}
