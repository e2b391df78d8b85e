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
	for _, tc := range []struct{ dir, keyFile, added, named string }{
		{"acta/deny-receipt", "acta-keys.json", "", ""},
		{"webaes-action-receipt/valid", "keys.json", "", ""},
		{"circe/producer-sample", "keys.json", "", ""},
		{"sb-runtime/genesis", "keys.json", "", ""},
		{"asqav-native/ed25519-previous-hash-null", "jwks.json", "", ""},
		{"asqav-hash/ed25519-valid", "jwks.json", "", "key_id"},
		{"asqav-vc/hash-ed25519-valid", "jwks.json", "", ""},
		{"undolog-effect/ts-ascii-agrees", "", "", ""},
		{"aerf/astral-member-names", "keys.json", `"timestamp":{}`, "timestamp"},
		{"xaip/co-signed", "keys.json", "", ""},
		{"vaara-receipt-v1/anchored", "jwks.json", "", ""},
		{"jws/flattened-es256", "jwks.json", "", ""},
		{"pipelock-action-v1/single", "keys.json", "", "version"},
	} {
		names := []string{tc.named}
		if tc.added == "" {
			tc.added, names = `"zz_added":1`, append(names, "zz_added")
		}
		path := filepath.Join("..", "testdata", "interop", tc.dir)
		var dir *keys.Directory
		if tc.keyFile != "" {
			s, err := keys.Load(tc.keyFile, readFile(t, filepath.Join(path, tc.keyFile)))
			if err != nil {
				t.Fatal(err)
			}
			d, err := keys.NewDirectory(s)
			if err != nil {
				t.Fatal(err)
			}
			dir = d
		}
		v, err := New(dir)
		if err != nil {
			t.Fatal(err)
		}
		raw := bytes.TrimSpace(readFile(t, filepath.Join(path, "receipt.json")))
		raw = append([]byte("{"+tc.added+","), raw[1:]...)
		res, err := v.Verify(raw)
		if err != nil || res.Verdict != Pass {
			t.Fatalf("%s: %v\n%s", tc.dir, err, dump(res))
		}
		note := res.Axes.Of(AxisSignature).Note
		for _, name := range names {
			if !strings.Contains(note, "not signed: ") || !strings.Contains(note, name) {
				t.Errorf("%s: signature note %q does not name %s", tc.dir, note, name)
			}
		}
	}
}
