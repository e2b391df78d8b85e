package keys_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/verify/keys"
)

// FuzzLoad checks that Load never panics and that what it returns is
// consistent: every key has a public key and every skip has a reason.
func FuzzLoad(f *testing.F) {
	for _, p := range corpusKeyFiles(f) {
		if b, err := os.ReadFile(filepath.Join(corpusDir, p)); err == nil {
			f.Add(b)
		}
	}
	// The DSSE vectors' PEM, securesystemslib and TUF-map key files.
	for _, pat := range []string{"*/key.pem", "*/key.json", "*/root-keys.json"} {
		m, _ := filepath.Glob(filepath.Join("../../testdata/interop/dsse-sslib", pat))
		for _, p := range m {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
	}
	f.Add([]byte(`did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw`))
	f.Add([]byte(`{"keys":[{"kid":"a","public_key":1},{"kty":"EC","crv":"P-256","x":"","y":""}]}`))
	f.Add([]byte(`{"kty":"OKP","crv":"Ed25519","x":"PM0kHP_Js2GARLl9A22GFFk9iwF8NA8d7odzOFUXZUs"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := keys.Load("fuzz", data)
		if err != nil {
			if s != nil {
				t.Fatal("snapshot returned with an error")
			}
			return
		}
		if len(s.Keys) == 0 {
			t.Fatal("no keys and no error")
		}
		for _, k := range s.Keys {
			if k.Err != nil {
				if k.Public != nil || k.Verify(nil, nil) == nil {
					t.Fatalf("unusable key verifies: %+v", k)
				}
				continue
			}
			if k.Public == nil || k.Alg != k.Public.Alg() {
				t.Fatalf("key %+v", k)
			}
		}
		for _, e := range s.Skipped {
			if e.Reason == "" {
				t.Fatalf("skip without reason: %v", e)
			}
		}
		d, err := keys.NewDirectory(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range s.Keys {
			_, _ = d.ResolveAsqav(k.KID, k.AgentID, k.IssuerID, k.OrgID)
			_, _ = d.ByID(k.KID)
			_, _ = d.ResolveDID(k.KID)
		}
	})
}
