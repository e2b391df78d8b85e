package attest_test

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"

	ssldsse "github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"

	"github.com/receiptverify/verify/internal/attest"
)

// pemPair is a private key and its public half, both PEM.
func pemPair(t *testing.T, priv crypto.Signer) (private, public []byte) {
	t.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(priv.Public())
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
}

func keysUnderTest(t *testing.T) map[string]crypto.Signer {
	t.Helper()
	p256, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	p384, err := ecdsa.GenerateKey(elliptic.P384(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]crypto.Signer{
		"ed25519": ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize)),
		"p256":    p256,
		"p384":    p384,
	}
}

// files writes name: content under dir and returns their descriptors.
func files(t *testing.T, dir string, m map[string]string) []attest.Descriptor {
	t.Helper()
	var ds []attest.Descriptor
	for name, content := range m {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256([]byte(content))
		ds = append(ds, attest.File(name, hex.EncodeToString(sum[:])))
	}
	return ds
}

func statement(subjects []attest.Descriptor) *attest.Statement {
	return attest.NewStatement(subjects, nil, attest.Predicate{Result: attest.Failed, FailedTests: []string{"2026-11-01/failures"},
		Summary: attest.Summary{Tool: "verify", Verdict: attest.Failed, Failing: 1}})
}

// The reference DSSE verifier accepts the envelope, keyid and all, and
// Open accepts it under the public key file alone.
func TestReferenceVerifierAccepts(t *testing.T) {
	for name, priv := range keysUnderTest(t) {
		t.Run(name, func(t *testing.T) {
			privPEM, pubPEM := pemPair(t, priv)
			s, err := attest.NewSigner("key.pem", privPEM)
			if err != nil {
				t.Fatal(err)
			}
			st := statement([]attest.Descriptor{attest.File("a.jsonl", hex.EncodeToString(make([]byte, 32)))})
			env, err := s.Sign(st)
			if err != nil {
				t.Fatal(err)
			}
			var e ssldsse.Envelope
			if err := json.Unmarshal(env, &e); err != nil {
				t.Fatal(err)
			}
			key, err := signerverifier.LoadKey(pubPEM)
			if err != nil {
				t.Fatal(err)
			}
			var v ssldsse.Verifier
			if name == "ed25519" {
				v, err = signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
			} else {
				v, err = signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
			}
			if err != nil {
				t.Fatal(err)
			}
			ev, err := ssldsse.NewEnvelopeVerifier(v)
			if err != nil {
				t.Fatal(err)
			}
			accepted, err := ev.Verify(context.Background(), &e)
			if err != nil {
				t.Fatalf("reference verifier: %v", err)
			}
			if kid, _ := v.KeyID(); accepted[0].KeyID != kid || e.Signatures[0].KeyID != kid {
				t.Errorf("keyid %q, reference %q", e.Signatures[0].KeyID, kid)
			}
			got, err := attest.Open("a.intoto.json", env, "key.pub", pubPEM)
			if err != nil {
				t.Fatal(err)
			}
			if got.Predicate.Result != attest.Failed || len(got.Subject) != 1 {
				t.Errorf("statement read back as %+v", got)
			}
		})
	}
}

// A byte changed in the payload, or another key, fails the signature.
func TestOpenRefuses(t *testing.T) {
	priv := ed25519.NewKeyFromSeed(make([]byte, ed25519.SeedSize))
	privPEM, pubPEM := pemPair(t, priv)
	_, otherPub := pemPair(t, ed25519.NewKeyFromSeed(append(make([]byte, ed25519.SeedSize-1), 1)))
	s, err := attest.NewSigner("key.pem", privPEM)
	if err != nil {
		t.Fatal(err)
	}
	env, err := s.Sign(statement(nil))
	if err != nil {
		t.Fatal(err)
	}
	var e attest.Envelope
	if err := json.Unmarshal(env, &e); err != nil {
		t.Fatal(err)
	}
	e.Payload = "f" + e.Payload[1:] // "eyJ..." is base64 of {"
	tampered, _ := json.Marshal(e)
	var se *attest.SignatureError
	if _, err := attest.Open("t", tampered, "key.pub", pubPEM); !errors.As(err, &se) {
		t.Errorf("tampered payload: %v, want a SignatureError", err)
	}
	if _, err := attest.Open("t", env, "other.pub", otherPub); !errors.As(err, &se) {
		t.Errorf("other key: %v, want a SignatureError", err)
	}
	var ke *attest.KeyError
	if _, err := attest.NewSigner("key.pub", pubPEM); !errors.As(err, &ke) {
		t.Errorf("public key to sign with: %v, want a KeyError", err)
	}
}

// Check names each changed and each missing file, and only those.
func TestCheckNamesChangedFiles(t *testing.T) {
	dir := t.TempDir()
	subjects := files(t, dir, map[string]string{"in/a.jsonl": "{}\n", "report/summary.md": "# PASS\n", "keys.json": "{}"})
	st := statement(subjects)
	if errs := attest.Check(st, dir); len(errs) != 0 {
		t.Fatalf("untouched files: %v", errs)
	}
	if err := os.WriteFile(filepath.Join(dir, "report/summary.md"), []byte("# FAIL\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "keys.json")); err != nil {
		t.Fatal(err)
	}
	errs := attest.Check(st, dir)
	if len(errs) != 2 || errs[0].Name != "keys.json" || !errs[0].Missing || errs[1].Name != "report/summary.md" || errs[1].Missing {
		t.Fatalf("got %v, want keys.json missing and report/summary.md changed", errs)
	}
}
