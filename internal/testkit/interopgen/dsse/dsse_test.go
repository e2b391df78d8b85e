package dsse_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/cryptotest"

	"github.com/secure-systems-lab/go-securesystemslib/dsse"
	"github.com/secure-systems-lab/go-securesystemslib/signerverifier"
)

var write = flag.Bool("write", false, "write the vectors instead of comparing them")

const (
	outDir      = "../../../../testdata/interop/dsse-attestation"
	payloadType = "application/vnd.in-toto+json"
	issuedAt    = "2026-11-02T10:00:00Z"
	judgedAt    = "2026-12-01T00:00:00Z"
)

// signer is one key pair, as the reference loads it (signerverifier.LoadKey
// of a PKCS #8 PEM private key), and its public JWK for the key file.
type signer struct {
	sv  dsse.SignerVerifier
	id  string
	jwk map[string]any
}

func ecdsaSigner(t *testing.T, seed string) signer {
	d := sha256.Sum256([]byte(seed))
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	key := loadPEM(t, priv)
	sv, err := signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	if err != nil {
		t.Fatal(err)
	}
	pt, err := priv.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	b64 := base64.RawURLEncoding.EncodeToString
	return signer{sv, key.KeyID, map[string]any{"kty": "EC", "crv": "P-256", "kid": key.KeyID, "x": b64(pt[1:33]), "y": b64(pt[33:])}}
}

// withoutKeyID is s with a signer that names no keyid, as a signer built
// from a key without one (cosign's, say) writes "keyid": "".
func withoutKeyID(t *testing.T, s signer, seed string) signer {
	d := sha256.Sum256([]byte(seed))
	priv, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
	if err != nil {
		t.Fatal(err)
	}
	key := loadPEM(t, priv)
	key.KeyID = ""
	sv, err := signerverifier.NewECDSASignerVerifierFromSSLibKey(key)
	if err != nil {
		t.Fatal(err)
	}
	s.sv = sv
	return s
}

func ed25519Signer(t *testing.T, seed string) signer {
	s := sha256.Sum256([]byte(seed))
	priv := ed25519.NewKeyFromSeed(s[:])
	key := loadPEM(t, priv)
	sv, err := signerverifier.NewED25519SignerVerifierFromSSLibKey(key)
	if err != nil {
		t.Fatal(err)
	}
	x := base64.RawURLEncoding.EncodeToString(priv.Public().(ed25519.PublicKey))
	return signer{sv, key.KeyID, map[string]any{"kty": "OKP", "crv": "Ed25519", "kid": key.KeyID, "x": x}}
}

func loadPEM(t *testing.T, priv any) *signerverifier.SSLibKey {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	key, err := signerverifier.LoadKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// statement is the in-toto Statement v1 the envelopes carry, with the
// predicate members the verifier reads as the receipt's fields.
func statement(tool string) []byte {
	b, _ := json.Marshal(map[string]any{
		"_type":         "https://in-toto.io/Statement/v1",
		"subject":       []any{map[string]any{"name": "act_interop_0001", "digest": map[string]string{"sha256": strings.Repeat("ab", 32)}}},
		"predicateType": "https://example.com/agent-action/v1",
		"predicate": map[string]any{
			"action_id": "act_interop_0001", "agent_id": "agt_interop", "issuer_id": "iss_interop",
			"action_type": "tool_call", "tool_name": tool, "issued_at": issuedAt,
		},
	})
	return b
}

// vector is one case directory.
type vector struct {
	name     string
	env      *dsse.Envelope
	trusted  []signer         // the key file, and the reference verifier's keys
	keyExtra []map[string]any // members added to each key file entry (status)
	verdict  string
	reasons  []string
	policy   string
	note     string
}

func sign(t *testing.T, body []byte, ss ...signer) *dsse.Envelope {
	var svs []dsse.Signer
	for _, s := range ss {
		svs = append(svs, s.sv)
	}
	es, err := dsse.NewEnvelopeSigner(svs...)
	if err != nil {
		t.Fatal(err)
	}
	env, err := es.SignPayload(context.Background(), payloadType, body)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func vectors(t *testing.T) []vector {
	ec := ecdsaSigner(t, "interop dsse ecdsa p-256 trusted")
	ed := ed25519Signer(t, "interop dsse ed25519 trusted")
	stranger := ecdsaSigner(t, "interop dsse ecdsa p-256 not in the key file")
	anon := withoutKeyID(t, ec, "interop dsse ecdsa p-256 trusted")
	body := statement("search")
	tamperedBody := statement("delete_all")

	tamperPayload := func(env *dsse.Envelope) *dsse.Envelope {
		env.Payload = base64.StdEncoding.EncodeToString(tamperedBody)
		return env
	}
	flipSig := func(env *dsse.Envelope, i int) *dsse.Envelope {
		sig, _ := base64.StdEncoding.DecodeString(env.Signatures[i].Sig)
		sig[len(sig)-1] ^= 0x01
		env.Signatures[i].Sig = base64.StdEncoding.EncodeToString(sig)
		return env
	}
	oneBad := sign(t, body, ec, ed)
	oneBad.Signatures[1].Sig = sign(t, tamperedBody, ed).Signatures[0].Sig
	retyped := sign(t, body, ed)
	retyped.PayloadType = "application/json"
	revokedAfter := map[string]any{"status": "revoked", "revoked_at": "2026-11-15T00:00:00Z"}
	revokedBefore := map[string]any{"status": "revoked", "revoked_at": "2026-10-01T00:00:00Z"}

	return []vector{
		{name: "ecdsa-p256-valid", env: sign(t, body, ec), trusted: []signer{ec}, verdict: "PASS",
			note: "ECDSA P-256 signature in ASN.1 DER, as ECDSASignerVerifier.Sign writes it"},
		{name: "ecdsa-p256-tampered-payload", env: tamperPayload(sign(t, body, ec)), trusted: []signer{ec}, verdict: "FAIL", reasons: []string{"bad_signature"},
			note: "the payload replaced after signing (another tool_name)"},
		{name: "ecdsa-p256-tampered-sig", env: flipSig(sign(t, body, ec), 0), trusted: []signer{ec}, verdict: "FAIL", reasons: []string{"bad_signature"},
			note: "the last byte of the DER signature flipped"},
		{name: "ed25519-valid", env: sign(t, body, ed), trusted: []signer{ed}, verdict: "PASS",
			note: "Ed25519 signature, as ED25519SignerVerifier.Sign writes it"},
		{name: "ed25519-tampered-payload-type", env: retyped, trusted: []signer{ed}, verdict: "FAIL", reasons: []string{"bad_signature"},
			note: "payloadType changed after signing; PAE covers it"},
		{name: "two-keys-valid", env: sign(t, body, ec, ed), trusted: []signer{ec, ed}, verdict: "PASS",
			note: "one envelope signed by an ECDSA and an Ed25519 key"},
		{name: "two-keys-one-bad", env: oneBad, trusted: []signer{ec, ed}, verdict: "PASS",
			note: "the Ed25519 signature is over another payload; the ECDSA one verifies, and the protocol accepts on one trusted signature"},
		{name: "two-keys-both-bad", env: tamperPayload(sign(t, body, ec, ed)), trusted: []signer{ec, ed}, verdict: "FAIL", reasons: []string{"bad_signature"},
			note: "the payload replaced after both signed"},
		{name: "untrusted-and-trusted", env: sign(t, body, stranger, ec), trusted: []signer{ec}, verdict: "PASS",
			note: "the first signature's key is not in the key file, the second's is"},
		{name: "ecdsa-p256-no-keyid", env: sign(t, body, anon), trusted: []signer{ed, ec}, verdict: "PASS",
			note: "the signer names no keyid (\"keyid\": \"\"), so every trusted key is tried; the key file holds an Ed25519 key first"},
		{name: "ecdsa-p256-no-keyid-tampered", env: tamperPayload(sign(t, body, anon)), trusted: []signer{ed, ec}, verdict: "FAIL", reasons: []string{"bad_signature"},
			note: "as ecdsa-p256-no-keyid, the payload replaced after signing"},
		{name: "untrusted-only", env: sign(t, body, stranger), trusted: []signer{ec}, verdict: "INCOMPLETE", reasons: []string{"unknown_key", "uncheckable", "uncheckable"},
			policy: "a signature by a key the key file does not hold is a check that could not be made, not proof of forgery; the reference verifier, given only trusted keys, rejects the envelope",
			note:   "signed by a key the key file does not hold"},
		{name: "ecdsa-p256-revoked-after-issue", env: sign(t, body, ec), trusted: []signer{ec}, keyExtra: []map[string]any{revokedAfter},
			verdict: "INCOMPLETE", reasons: []string{"revoked_after_issue"},
			policy: "the key file marks the key revoked after the issue time the payload claims, a claim the signer makes; go-securesystemslib has no key status and accepts",
			note:   "valid signature; the key file says revoked at 2026-11-15, the predicate says issued 2026-11-02"},
		{name: "ecdsa-p256-revoked-before-issue", env: sign(t, body, ec), trusted: []signer{ec}, keyExtra: []map[string]any{revokedBefore},
			verdict: "FAIL", reasons: []string{"key_revoked"},
			policy: "the key file marks the key revoked before the receipt was issued; go-securesystemslib has no key status and accepts",
			note:   "valid signature; the key file says revoked at 2026-10-01, before the issue time"},
	}
}

// producerVerdict is what the reference verifier says of env given the
// trusted keys: dsse.NewEnvelopeVerifier (threshold one) over public-key
// verifiers.
func producerVerdict(t *testing.T, env *dsse.Envelope, trusted []signer) string {
	var vs []dsse.Verifier
	for _, s := range trusted {
		vs = append(vs, s.sv)
	}
	ev, err := dsse.NewEnvelopeVerifier(vs...)
	if err != nil {
		t.Fatal(err)
	}
	// The envelope goes through JSON as a user's file does.
	raw, _ := json.Marshal(env)
	var back dsse.Envelope
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if _, err := ev.Verify(context.Background(), &back); err != nil {
		return "FAIL"
	}
	return "PASS"
}

func marshal(t *testing.T, v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// files makes every vector file, keyed by its path under outDir.
func files(t *testing.T) map[string][]byte {
	out := map[string][]byte{}
	for _, v := range vectors(t) {
		receipt, err := json.Marshal(v.env)
		if err != nil {
			t.Fatal(err)
		}
		out[v.name+"/receipt.json"] = append(receipt, '\n')
		var entries []map[string]any
		for i, s := range v.trusted {
			e := map[string]any{}
			for k, x := range s.jwk {
				e[k] = x
			}
			if i < len(v.keyExtra) {
				for k, x := range v.keyExtra[i] {
					e[k] = x
				}
			}
			entries = append(entries, e)
		}
		out[v.name+"/keys.json"] = marshal(t, map[string]any{"keys": entries})
		reasons := v.reasons
		if reasons == nil {
			reasons = []string{}
		}
		exp := map[string]any{
			"format": "dsse-attestation", "verdict": v.verdict, "reasons": reasons,
			"keys": []string{"keys.json"}, "at": judgedAt,
			"producer_verdict": producerVerdict(t, v.env, v.trusted), "note": v.note,
		}
		if v.policy != "" {
			exp["policy"] = v.policy
		}
		out[v.name+"/expected.json"] = marshal(t, exp)
	}
	return out
}

// TestVectors makes the vectors and compares them with the committed
// ones, or writes them with -write. It owns only the case directories it
// makes: others in the directory come from other producers.
func TestVectors(t *testing.T) {
	cryptotest.SetGlobalRandom(t, 14)
	want := files(t)
	own := map[string]bool{}
	for name := range want {
		own[strings.Split(name, "/")[0]] = true
	}
	if *write {
		for dir := range own {
			if err := os.RemoveAll(filepath.Join(outDir, dir)); err != nil {
				t.Fatal(err)
			}
		}
		for name, b := range want {
			p := filepath.Join(outDir, name)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	for name, b := range want {
		got, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			t.Errorf("%s: %v (run with -write)", name, err)
			continue
		}
		if !bytes.Equal(got, b) {
			t.Errorf("%s differs from what the generator makes (run with -write)", name)
		}
	}
	for dir := range own {
		entries, err := os.ReadDir(filepath.Join(outDir, dir))
		if err != nil {
			continue // reported above
		}
		for _, e := range entries {
			if name := dir + "/" + e.Name(); want[name] == nil {
				t.Errorf("%s is not made by the generator", name)
			}
		}
	}
}
