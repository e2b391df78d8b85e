package stream

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify"
)

// TestUnknownFormatCountedApart: documents no format's detector claims are
// INCOMPLETE and counted in Summary.UnknownFormat, apart from the failed
// receipt beside them and from the other incomplete ones.
func TestUnknownFormatCountedApart(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	lines := `{"call_ref":"c1","seal":"ab"}
{"span":{"actor":"a"},"sig":"cd","trace_id":"ef"}
{"type":["VerifiableCredential","AgentReceipt"],"proof":{"type":"DataIntegrityProof"}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := verify.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	var unknown int
	sum, err := Run(context.Background(), v, []Source{FileSource(path)}, Options{}, func(r *Record) error {
		if verify.IsUnknownFormat(r.Result) {
			unknown++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Fail != 1 || sum.Incomplete != 2 || sum.UnknownFormat != 2 || unknown != 2 {
		t.Errorf("fail %d, incomplete %d, unknown_format %d (%d emitted); want 1, 2, 2", sum.Fail, sum.Incomplete, sum.UnknownFormat, unknown)
	}
}
