package verify

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/keys"
)

// TestCoverageNote adds a member beside what an envelope signs and expects
// the signature's note to name it, the verdict unchanged: the signature
// cannot see it, and the auditor must be told.
func TestCoverageNote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ dir, keyFile string }{
		{"acta/deny-receipt", "acta-keys.json"},
		{"webaes-action-receipt/valid", "keys.json"},
		{"circe/producer-sample", "keys.json"},
		{"xaip/co-signed", "keys.json"},
		{"vaara-receipt-v1/anchored", "jwks.json"},
		{"jws/flattened-es256", "jwks.json"},
	} {
		path := filepath.Join("..", "testdata", "interop", tc.dir)
		s, err := keys.Load(tc.keyFile, readFile(t, filepath.Join(path, tc.keyFile)))
		if err != nil {
			t.Fatal(err)
		}
		d, err := keys.NewDirectory(s)
		if err != nil {
			t.Fatal(err)
		}
		v, err := New(d)
		if err != nil {
			t.Fatal(err)
		}
		raw := bytes.TrimSpace(readFile(t, filepath.Join(path, "receipt.json")))
		raw = append([]byte(`{"zz_added":1,`), raw[1:]...)
		res, err := v.Verify(raw)
		if err != nil || res.Verdict != Pass {
			t.Fatalf("%s: %v\n%s", tc.dir, err, dump(res))
		}
		if note := res.Axes.Of(AxisSignature).Note; !strings.Contains(note, "not signed: ") || !strings.Contains(note, "zz_added") {
			t.Errorf("%s: signature note %q does not name zz_added", tc.dir, note)
		}
	}
}
