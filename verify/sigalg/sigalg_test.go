package sigalg_test

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"runtime"
	"strconv"
	"sync"
	"testing"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"

	"github.com/receiptverify/verify/verify/sigalg"
)

func TestParseAlg(t *testing.T) {
	t.Parallel()
	ok := map[string]sigalg.Alg{
		"ML-DSA-44": sigalg.MLDSA44, "ml-dsa-44": sigalg.MLDSA44, "MLDSA44": sigalg.MLDSA44,
		"ML-DSA-65": sigalg.MLDSA65, "ml-dsa-65": sigalg.MLDSA65, "mldsa65": sigalg.MLDSA65, "ML_DSA_65": sigalg.MLDSA65,
		"ML-DSA-87": sigalg.MLDSA87, "ml-dsa-87": sigalg.MLDSA87,
		"Ed25519": sigalg.Ed25519, "ed25519": sigalg.Ed25519, "EdDSA": sigalg.Ed25519, "EDDSA": sigalg.Ed25519,
		"ES256": sigalg.ES256, "es256": sigalg.ES256, "ES384": sigalg.ES384, "es512": sigalg.ES512, "PS256": sigalg.PS256,
	}
	for in, want := range ok {
		got, err := sigalg.ParseAlg(in)
		if err != nil || got != want {
			t.Errorf("ParseAlg(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"", "Dilithium3", "dilithium2", "Ed448", "RS256", "PS384", "ES256K", " Ed25519", "Ed25519Signature2020", "ML-DSA-65\x00"} {
		_, err := sigalg.ParseAlg(in)
		if !errors.Is(err, sigalg.ErrUnsupportedAlg) {
			t.Errorf("ParseAlg(%q) error = %v; want unsupported_alg", in, err)
		}
	}
}

// The size table must agree with the libraries that do the work.
func TestSizes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		alg     sigalg.Alg
		pk, sig int
	}{
		{sigalg.MLDSA44, mldsa44.PublicKeySize, mldsa44.SignatureSize},
		{sigalg.MLDSA65, mldsa65.PublicKeySize, mldsa65.SignatureSize},
		{sigalg.MLDSA87, mldsa87.PublicKeySize, mldsa87.SignatureSize},
		{sigalg.Ed25519, ed25519.PublicKeySize, ed25519.SignatureSize},
		{sigalg.ES256, 65, 64},
		{sigalg.ES384, 97, 96},
		{sigalg.ES512, 133, 132},
		{sigalg.PS256, 0, 0}, // by the key: PublicKey.SignatureSize
	} {
		if c.alg.PublicKeySize() != c.pk || c.alg.SignatureSize() != c.sig {
			t.Errorf("%s: sizes %d/%d, want %d/%d", c.alg, c.alg.PublicKeySize(), c.alg.SignatureSize(), c.pk, c.sig)
		}
		if !c.alg.Valid() {
			t.Errorf("%s not Valid", c.alg)
		}
	}
	if sigalg.Alg("RS256").Valid() {
		t.Error("RS256 is Valid")
	}
	for n, want := range map[int]sigalg.Alg{65: sigalg.ES256, 97: sigalg.ES384, 133: sigalg.ES512} {
		raw := make([]byte, n)
		raw[0] = 0x04
		if got, ok := sigalg.AlgForKeySize(raw); !ok || got != want {
			t.Errorf("AlgForKeySize(%d bytes) = %s, want %s", n, got, want)
		}
	}
}

func seed32(b byte) *[32]byte {
	var s [32]byte
	for i := range s {
		s[i] = b + byte(i)
	}
	return &s
}

// signer abstracts the three ML-DSA parameter sets for table tests.
type signer struct {
	alg  sigalg.Alg
	pub  []byte
	sign func(msg, ctx []byte) []byte
}

func mldsaSigners(t testing.TB) []signer {
	t.Helper()
	pk44, sk44 := mldsa44.NewKeyFromSeed(seed32(44))
	pk65, sk65 := mldsa65.NewKeyFromSeed(seed32(65))
	pk87, sk87 := mldsa87.NewKeyFromSeed(seed32(87))
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	return []signer{
		{sigalg.MLDSA44, pk44.Bytes(), func(m, c []byte) []byte {
			s := make([]byte, mldsa44.SignatureSize)
			must(mldsa44.SignTo(sk44, m, c, false, s))
			return s
		}},
		{sigalg.MLDSA65, pk65.Bytes(), func(m, c []byte) []byte {
			s := make([]byte, mldsa65.SignatureSize)
			must(mldsa65.SignTo(sk65, m, c, false, s))
			return s
		}},
		{sigalg.MLDSA87, pk87.Bytes(), func(m, c []byte) []byte {
			s := make([]byte, mldsa87.SignatureSize)
			must(mldsa87.SignTo(sk87, m, c, false, s))
			return s
		}},
	}
}

func TestMLDSARoundTrip(t *testing.T) {
	t.Parallel()
	msg := []byte("tool call receipt")
	for _, s := range mldsaSigners(t) {
		t.Run(string(s.alg), func(t *testing.T) {
			t.Parallel()
			k, err := sigalg.NewPublicKey(s.alg, s.pub)
			if err != nil {
				t.Fatal(err)
			}
			sig := s.sign(msg, nil)
			if err := k.Verify(msg, sig); err != nil {
				t.Fatalf("Verify: %v", err)
			}
			// One flipped bit anywhere fails, in the signature or the message.
			for _, i := range []int{0, len(sig) / 2, len(sig) - 1} {
				bad := bytes.Clone(sig)
				bad[i] ^= 1
				if err := k.Verify(msg, bad); !errors.Is(err, sigalg.ErrBadSignature) {
					t.Errorf("sig bit %d flipped: %v, want bad_signature", i, err)
				}
			}
			badMsg := bytes.Clone(msg)
			badMsg[3] ^= 0x80
			if err := k.Verify(badMsg, sig); !errors.Is(err, sigalg.ErrBadSignature) {
				t.Errorf("msg bit flipped: %v, want bad_signature", err)
			}
			// A signature made with a non-empty context is not a pure
			// empty-context signature.
			if err := k.Verify(msg, s.sign(msg, []byte("ctx"))); !errors.Is(err, sigalg.ErrBadSignature) {
				t.Errorf("context signature: %v, want bad_signature", err)
			}
			// Wrong sizes are typed errors.
			var se *sigalg.SizeError
			err = k.Verify(msg, sig[:len(sig)-1])
			if !errors.Is(err, sigalg.ErrMalformedSignature) || !errors.As(err, &se) ||
				se.Got != len(sig)-1 || se.Want != s.alg.SignatureSize() {
				t.Errorf("short signature: %v", err)
			}
			_, err = sigalg.NewPublicKey(s.alg, append(bytes.Clone(s.pub), 0))
			if !errors.Is(err, sigalg.ErrMalformedKey) || !errors.As(err, &se) || se.Want != s.alg.PublicKeySize() {
				t.Errorf("long key: %v", err)
			}
		})
	}
}

func TestNewPublicKeyErrors(t *testing.T) {
	t.Parallel()
	var se *sigalg.SizeError
	for _, c := range []struct {
		alg  sigalg.Alg
		n    int
		want error
	}{
		{sigalg.Ed25519, 31, sigalg.ErrMalformedKey},
		{sigalg.Ed25519, 0, sigalg.ErrMalformedKey},
		{sigalg.MLDSA65, 1312, sigalg.ErrMalformedKey},
		{sigalg.ES256, 64, sigalg.ErrMalformedKey},
		{sigalg.Alg("RS256"), 256, sigalg.ErrUnsupportedAlg},
		{sigalg.Alg(""), 32, sigalg.ErrUnsupportedAlg},
	} {
		_, err := sigalg.NewPublicKey(c.alg, make([]byte, c.n))
		if !errors.Is(err, c.want) {
			t.Errorf("NewPublicKey(%q, %d bytes) = %v, want %v", c.alg, c.n, err, c.want)
		}
		if c.want == sigalg.ErrMalformedKey && !errors.As(err, &se) {
			t.Errorf("NewPublicKey(%q, %d bytes): no SizeError in %v", c.alg, c.n, err)
		}
	}
	// 65 bytes but not a point on P-256.
	bad := make([]byte, 65)
	bad[0] = 4
	if _, err := sigalg.NewPublicKey(sigalg.ES256, bad); !errors.Is(err, sigalg.ErrMalformedKey) {
		t.Errorf("off-curve ES256 key: %v", err)
	}
}

func TestEd25519(t *testing.T) {
	t.Parallel()
	priv := ed25519.NewKeyFromSeed(seed32(1)[:])
	k, err := sigalg.NewPublicKey(sigalg.Ed25519, priv.Public().(ed25519.PublicKey))
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("m")
	sig := ed25519.Sign(priv, msg)
	if err := k.Verify(msg, sig); err != nil {
		t.Fatal(err)
	}
	sig[10] ^= 4
	if err := k.Verify(msg, sig); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Fatalf("flipped: %v", err)
	}
	if err := k.Verify(msg, sig[:63]); !errors.Is(err, sigalg.ErrMalformedSignature) {
		t.Fatalf("short: %v", err)
	}
	if err := k.VerifyES256DER(msg, sig); !errors.Is(err, sigalg.ErrUnsupportedAlg) {
		t.Fatalf("DER on Ed25519: %v", err)
	}
}

// authproof-01-genesis-real-sdk: ES256 raw r||s over JSON.stringify of the
// document minus "signature", key embedded as a JWK. The message below is
// that serialization, written out by hand.
const authproofMsg = `{"delegationId":"auth-1780609788582-vktlb","issuedAt":"2026-06-04T21:49:48.582Z","scope":"Search the web for public info.","boundaries":"Do not send emails.","timeWindow":{"start":"2026-06-04T21:49:48.582Z","end":"2026-06-05T01:49:48.582Z"},"operatorInstructions":"Cite every claim.","instructionsHash":"be7ee51a1d624620cb2792ff1351f1a9ab411e47cfb301d9c1578faad45cff47","signerPublicKey":{"kty":"EC","crv":"P-256","x":"yMVhXZILz_GGg8wwWuea3gOYkTvvYwzM42bgY5k_zgM","y":"KeSjl2d1A6yOlxVhMvaiMmB07ze7DBRc16HgZU_4fE8"},"agentId":"agent-007"}`

const authproofSig = "152657d7c58354549f6ec8fb9f3d467467efa97f5cb6564d8a379ad4259ea6e8c5a4bb9b376dd528a105ec70129664b868e00fd1fb40d689b7279276febdb164"

func TestES256Authproof(t *testing.T) {
	t.Parallel()
	k, err := sigalg.PublicKeyFromJWK("EC", "P-256", "yMVhXZILz_GGg8wwWuea3gOYkTvvYwzM42bgY5k_zgM", "KeSjl2d1A6yOlxVhMvaiMmB07ze7DBRc16HgZU_4fE8")
	if err != nil {
		t.Fatal(err)
	}
	if k.Alg() != sigalg.ES256 || len(k.Bytes()) != 65 || k.Bytes()[0] != 4 {
		t.Fatalf("key %v", k)
	}
	sig, err := sigalg.DecodeHexN(authproofSig, 64)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Verify([]byte(authproofMsg), sig); err != nil {
		t.Fatalf("authproof-01: %v", err)
	}
	// authproof-03 tampers the scope; the same signature must then fail.
	tampered := bytes.Replace([]byte(authproofMsg), []byte("public info"), []byte("private info"), 1)
	if err := k.Verify(tampered, sig); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Fatalf("tampered: %v", err)
	}
	// The same point given as SEC1 bytes is the same key.
	k2, err := sigalg.NewPublicKey(sigalg.ES256, k.Bytes())
	if err != nil || !k2.Equal(k) {
		t.Fatalf("SEC1 round trip: %v", err)
	}
	// The DER form of the same signature verifies only through the DER helper.
	r := new(big.Int).SetBytes(sig[:32])
	s := new(big.Int).SetBytes(sig[32:])
	der := derSig(t, r, s)
	if err := k.VerifyES256DER([]byte(authproofMsg), der); err != nil {
		t.Fatalf("DER: %v", err)
	}
	if err := k.Verify([]byte(authproofMsg), der); err == nil {
		t.Fatal("Verify accepted a DER signature")
	}
	if err := k.VerifyES256DER([]byte(authproofMsg), append(der, 0)); !errors.Is(err, sigalg.ErrMalformedSignature) {
		t.Fatalf("DER with trailing byte: %v", err)
	}
}

func derSig(t *testing.T, r, s *big.Int) []byte {
	t.Helper()
	// Build DER by hand so the test does not share code with the helper.
	enc := func(n *big.Int) []byte {
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return append([]byte{0x02, byte(len(b))}, b...)
	}
	body := append(enc(r), enc(s)...)
	return append([]byte{0x30, byte(len(body))}, body...)
}

func TestES256RoundTrip(t *testing.T) {
	t.Parallel()
	// Signing is randomized, which does not matter for a verify test.
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	point, err := priv.PublicKey.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	k, err := sigalg.NewPublicKey(sigalg.ES256, point)
	if err != nil {
		t.Fatal(err)
	}
	msg := []byte("hello")
	h := sha256.Sum256(msg)
	der, err := ecdsa.SignASN1(rand.Reader, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	if err := k.VerifyES256DER(msg, der); err != nil {
		t.Fatal(err)
	}
	r, s, err := ecdsa.Sign(rand.Reader, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	raw := make([]byte, 64)
	r.FillBytes(raw[:32])
	s.FillBytes(raw[32:])
	if err := k.Verify(msg, raw); err != nil {
		t.Fatal(err)
	}
	raw[0] ^= 1
	if err := k.Verify(msg, raw); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Fatal(err)
	}
}

func TestPublicKeyFromJWK(t *testing.T) {
	t.Parallel()
	// acta-01-genesis key.
	k, err := sigalg.PublicKeyFromJWK("OKP", "Ed25519", "PM0kHP_Js2GARLl9A22GFFk9iwF8NA8d7odzOFUXZUs", "")
	if err != nil || k.Alg() != sigalg.Ed25519 {
		t.Fatalf("OKP: %v", err)
	}
	for _, c := range [][4]string{
		{"OKP", "Ed448", "AA", ""},
		{"RSA", "", "", ""},
		{"EC", "secp256k1", "AA", "AA"},
	} {
		if _, err := sigalg.PublicKeyFromJWK(c[0], c[1], c[2], c[3]); !errors.Is(err, sigalg.ErrUnsupportedAlg) {
			t.Errorf("%v: %v", c, err)
		}
	}
	if _, err := sigalg.PublicKeyFromJWK("EC", "P-256", "AAAA", "AAAA"); !errors.Is(err, sigalg.ErrMalformedKey) {
		t.Errorf("short EC coords: %v", err)
	}
	if _, err := sigalg.PublicKeyFromJWK("OKP", "Ed25519", "!!", ""); !errors.Is(err, sigalg.ErrMalformedKey) {
		t.Errorf("bad x: %v", err)
	}
}

// readJSON reads a testdata JSON file into v.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatal(err)
	}
}

type jwks struct {
	Keys []struct {
		KID       string `json:"kid"`
		Alg       string `json:"alg"`
		PublicKey string `json:"public_key"`
	} `json:"keys"`
}

func asqavKey(t *testing.T, file string) *sigalg.PublicKey {
	t.Helper()
	var set jwks
	readJSON(t, file, &set)
	e := set.Keys[0]
	alg, err := sigalg.ParseAlg(e.Alg)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := sigalg.DecodeBase64(e.PublicKey, sigalg.Base64Std)
	if err != nil {
		t.Fatal(err)
	}
	k, err := sigalg.NewPublicKey(alg, raw)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// asqav-05-hash-mode-prod: a production ML-DSA-65 signature over the
// 418-byte signing input captured from the server.
func TestMLDSA65Asqav05(t *testing.T) {
	t.Parallel()
	k := asqavKey(t, "../../testdata/receipts/asqav-05-hash-mode-prod/jwks.json")
	var rec struct {
		Algorithm string `json:"algorithm"`
		Sig       string `json:"signature_b64"`
	}
	readJSON(t, "testdata/asqav-05-hash-mode-prod.receipt.json", &rec)
	msg, err := os.ReadFile("testdata/asqav-05-hash-mode-prod.signed_message.bytes")
	if err != nil {
		t.Fatal(err)
	}
	sig, err := sigalg.DecodeBase64(rec.Sig, sigalg.Base64URLRaw)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Verify(msg, sig); err != nil {
		t.Fatalf("asqav-05: %v", err)
	}
	msg[len(msg)-2] ^= 1
	if err := k.Verify(msg, sig); !errors.Is(err, sigalg.ErrBadSignature) {
		t.Fatalf("asqav-05 tampered: %v", err)
	}
}

// dsse-attestation-ml-dsa-65: ML-DSA-65 over the DSSE pre-authentication
// encoding of the decoded payload.
func TestMLDSA65DSSE(t *testing.T) {
	t.Parallel()
	k := asqavKey(t, "../../testdata/receipts/dsse-attestation-ml-dsa-65/jwks.json")
	var env struct {
		PayloadType string `json:"payloadType"`
		Payload     string `json:"payload"`
		Signatures  []struct {
			Sig string `json:"sig"`
		} `json:"signatures"`
	}
	readJSON(t, "testdata/dsse-attestation-ml-dsa-65.receipt.json", &env)
	body, err := sigalg.DecodeBase64Any(env.Payload)
	if err != nil {
		t.Fatal(err)
	}
	sig, err := sigalg.DecodeBase64Any(env.Signatures[0].Sig)
	if err != nil {
		t.Fatal(err)
	}
	pae := fmt.Appendf(nil, "DSSEv1 %d %s %d ", len(env.PayloadType), env.PayloadType, len(body))
	pae = append(pae, body...)
	if err := k.Verify(pae, sig); err != nil {
		t.Fatalf("dsse: %v", err)
	}
}

// TestMLDSAKeyExpandsOnFirstUse: loading an ML-DSA key keeps its bytes
// only; the matrix (tens of kilobytes) is derived when the key first
// verifies, so that a large key directory costs memory only for the keys
// its receipts use.
func TestMLDSAKeyExpandsOnFirstUse(t *testing.T) {
	for _, s := range mldsaSigners(t) {
		keys := make([]*sigalg.PublicKey, 100)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range keys {
			k, err := sigalg.NewPublicKey(s.alg, s.pub)
			if err != nil {
				t.Fatal(err)
			}
			keys[i] = k
		}
		runtime.ReadMemStats(&after)
		if per := (after.TotalAlloc - before.TotalAlloc) / uint64(len(keys)); per > 8<<10 {
			t.Errorf("%s: loading a key allocates %d bytes", s.alg, per)
		}
		msg := []byte("first use")
		if err := keys[0].Verify(msg, s.sign(msg, nil)); err != nil {
			t.Errorf("%s: %v", s.alg, err)
		}
	}
}

// Verify on one key from many goroutines, the first use among them; run
// with -race to check sharing.
func TestConcurrentVerify(t *testing.T) {
	t.Parallel()
	s := mldsaSigners(t)[1]
	k, err := sigalg.NewPublicKey(s.alg, s.pub)
	if err != nil {
		t.Fatal(err)
	}
	sigs := make([][]byte, 8)
	for i := range sigs {
		sigs[i] = s.sign([]byte(strconv.Itoa(i)), nil)
	}
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range sigs {
				err := k.Verify([]byte(strconv.Itoa(i)), sigs[(i+g%2)%len(sigs)])
				if (g%2 == 0) != (err == nil) {
					t.Errorf("goroutine %d sig %d: %v", g, i, err)
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkMLDSA65Verify compares verifying with a parsed key against
// parsing the packed key for every signature, which is what caching saves.
func BenchmarkMLDSA65Verify(b *testing.B) {
	s := mldsaSigners(b)[1]
	msg := []byte("benchmark message")
	sig := s.sign(msg, nil)
	b.Run("cached", func(b *testing.B) {
		k, err := sigalg.NewPublicKey(sigalg.MLDSA65, s.pub)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if err := k.Verify(msg, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("uncached", func(b *testing.B) {
		for b.Loop() {
			k, err := sigalg.NewPublicKey(sigalg.MLDSA65, s.pub)
			if err != nil {
				b.Fatal(err)
			}
			if err := k.Verify(msg, sig); err != nil {
				b.Fatal(err)
			}
		}
	})
}
