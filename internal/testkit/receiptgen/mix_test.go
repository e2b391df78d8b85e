package receiptgen_test

import (
	"bytes"
	"context"
	"io"
	"slices"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// TestMix: a corpus with a mix holds each format in the counts asked, the
// same bytes whatever the workers, and through a stream run every receipt
// of it passes but the planted ones, which fail where truth.jsonl says
// (one tampered signature in each mix format).
func TestMix(t *testing.T) {
	t.Parallel()
	cfg := receiptgen.Config{Seed: 5, N: 160, Rate: 0.15, Mix: receiptgen.Mix{Hash: 8, DSSE: 7, AgentReceipts: 11}, Workers: 1}
	sink, truth := generate(t, cfg)
	cfg.Workers = 3
	again, _ := generate(t, cfg)
	for _, name := range sink.Names() {
		if !bytes.Equal(sink.File(name), again.File(name)) {
			t.Errorf("%s differs between 1 and 3 workers", name)
		}
	}
	at := receiptgen.DefaultStart().AddDate(0, 1, 0)
	v, err := verify.New(keyDir(t, sink), verify.WithTime(at), verify.WithSchemas(schemaSet(t, sink)))
	if err != nil {
		t.Fatal(err)
	}
	data := sink.File(receiptgen.FileReceipts)
	src := stream.Source{Name: "receipts.jsonl", Lines: true, Open: func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil }}
	planted := truth.ByLine()
	formats := map[string]int{}
	mixTampered := 0
	_, err = stream.Run(context.Background(), v, []stream.Source{src}, stream.Options{}, func(r *stream.Record) error {
		formats[r.Format]++
		rec, ok := planted[r.Line]
		switch {
		case !ok && r.Verdict != verify.Pass:
			t.Errorf("line %d (%s): %s %v, nothing planted", r.Line, r.Format, r.Verdict, r.Reasons)
		case ok && rec.Kind != receiptgen.KindSchemaDrift && !slices.Contains(r.Reasons, verify.Reason(rec.Reason)):
			t.Errorf("line %d (%s): planted %s, got %s %v", r.Line, r.Format, rec.Kind, r.Verdict, r.Reasons)
		case ok && r.Format != "asqav-native":
			if rec.Kind != receiptgen.KindTamperedSignature {
				t.Errorf("line %d: %s planted on %s", r.Line, rec.Kind, r.Format)
			}
			mixTampered++
		}
		if r.Format == "agentreceipts" && r.Verdict == verify.Pass {
			if _, _, present := r.ChainLink(); !present || r.Axes.Of(verify.AxisChain).Status != verify.StatusPass {
				t.Errorf("line %d: agentreceipts chain axis %+v", r.Line, r.Axes.Of(verify.AxisChain))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"asqav-hash": 8, "dsse-attestation": 7, "agentreceipts": 11, "asqav-native": 160 - 26}
	for f, n := range want {
		if formats[f] != n {
			t.Errorf("%s: %d receipts, want %d (all: %v)", f, formats[f], n, formats)
		}
	}
	if mixTampered != 3 {
		t.Errorf("%d planted receipts in the mix formats, want 3", mixTampered)
	}
}

func TestParseMix(t *testing.T) {
	t.Parallel()
	got, err := receiptgen.ParseMix("asqav-hash=2, dsse=3,agentreceipts=4")
	if err != nil || got != (receiptgen.Mix{Hash: 2, DSSE: 3, AgentReceipts: 4}) {
		t.Errorf("got %+v, %v", got, err)
	}
	if got, err := receiptgen.ParseMix(""); err != nil || got != (receiptgen.Mix{}) {
		t.Errorf("empty: %+v, %v", got, err)
	}
	for _, bad := range []string{"dsse", "dsse=-1", "acta=2", "dsse=x"} {
		if _, err := receiptgen.ParseMix(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	if _, err := receiptgen.Generate(receiptgen.Config{N: 5, Mix: receiptgen.Mix{DSSE: 6}}, receiptgen.NewMemSink()); err == nil {
		t.Error("a mix larger than n: no error")
	}
}
