package receiptgen

import (
	"bytes"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/cloudflare/circl/sign/mldsa/mldsa44"
	"github.com/cloudflare/circl/sign/mldsa/mldsa65"
	"github.com/cloudflare/circl/sign/mldsa/mldsa87"

	"github.com/receiptverify/verify/verify/sigalg"
)

// agent is one signing identity: an agent of an org with its own key.
type agent struct {
	id, kid, org string
	alg          sigalg.Alg
	pub          []byte
	sign         func(msg []byte) []byte // deterministic
	revoked      bool
}

// newSigner derives a key pair of alg from seed. ML-DSA signs in the
// deterministic variant (FIPS 204 with rnd = 0) with an empty context, as
// Asqav's pure ML-DSA does; Ed25519 is deterministic by construction.
func newSigner(alg sigalg.Alg, seed [32]byte) (pub []byte, sign func([]byte) []byte, err error) {
	switch alg {
	case sigalg.MLDSA44:
		pk, sk := mldsa44.NewKeyFromSeed(&seed)
		return pk.Bytes(), func(msg []byte) []byte {
			sig := make([]byte, mldsa44.SignatureSize)
			_ = mldsa44.SignTo(sk, msg, nil, false, sig) // fails only for a long context
			return sig
		}, nil
	case sigalg.MLDSA65:
		pk, sk := mldsa65.NewKeyFromSeed(&seed)
		return pk.Bytes(), func(msg []byte) []byte {
			sig := make([]byte, mldsa65.SignatureSize)
			_ = mldsa65.SignTo(sk, msg, nil, false, sig)
			return sig
		}, nil
	case sigalg.MLDSA87:
		pk, sk := mldsa87.NewKeyFromSeed(&seed)
		return pk.Bytes(), func(msg []byte) []byte {
			sig := make([]byte, mldsa87.SignatureSize)
			_ = mldsa87.SignTo(sk, msg, nil, false, sig)
			return sig
		}, nil
	case sigalg.Ed25519:
		sk := ed25519.NewKeyFromSeed(seed[:])
		return bytes.Clone(sk.Public().(ed25519.PublicKey)), func(msg []byte) []byte { return ed25519.Sign(sk, msg) }, nil
	}
	return nil, nil, fmt.Errorf("receiptgen: cannot sign with %s", alg)
}

func seed32(r *rand.Rand) [32]byte {
	var s [32]byte
	for i := 0; i < 32; i += 8 {
		v := r.Uint64()
		for j := range 8 {
			s[i+j] = byte(v >> (8 * j))
		}
	}
	return s
}

func newAgent(r *rand.Rand, alg sigalg.Alg, id, org string) (*agent, error) {
	pub, sign, err := newSigner(alg, seed32(r))
	if err != nil {
		return nil, err
	}
	return &agent{id: id, kid: "key_" + hexN(r, 16), org: org, alg: alg, pub: pub, sign: sign}, nil
}

// jwksEntry is one entry of the Asqav key directory.
type jwksEntry struct {
	KID       string  `json:"kid"`
	AgentID   string  `json:"agent_id"`
	IssuerID  string  `json:"issuer_id"`
	OrgID     string  `json:"org_id"`
	Alg       string  `json:"alg"`
	PublicKey string  `json:"public_key"`
	Status    string  `json:"status"`
	RevokedAt *string `json:"revoked_at"`
}

// jwks renders the Asqav JWKS: public keys in standard base64 with
// padding, the revoked agent last with status "revoked" and revoked_at a
// day before the window.
func jwks(agents []*agent, start time.Time) ([]byte, error) {
	var doc struct {
		Keys []jwksEntry `json:"keys"`
	}
	for _, a := range agents {
		e := jwksEntry{KID: a.kid, AgentID: a.id, IssuerID: a.org, OrgID: a.org, Alg: string(a.alg),
			PublicKey: base64.StdEncoding.EncodeToString(a.pub), Status: "active"}
		if a.revoked {
			e.Status = "revoked"
			at := start.Add(-24 * time.Hour).Format(time.RFC3339)
			e.RevokedAt = &at
		}
		doc.Keys = append(doc.Keys, e)
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	return append(b, '\n'), err
}
