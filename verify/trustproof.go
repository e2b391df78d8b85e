package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
)

// A TrustProof receipt (ataraxia-labs-ai/TrustProof-Protocol,
// packages/js) is a JWT, EdDSA, in compact serialization (jws.go reads
// the envelope and checks the signature). Its claims chain: chain.prev_hash
// is the predecessor's chain.entry_hash (64 zeros for the first), and
// entry_hash is SHA-256 of the lowercase prev_hash followed by the
// canonical event material, JSON.stringify with sorted names (RFC 8785's
// bytes) of subject, action, resource, policy, result, hashes, timestamp
// and jti. The SDK's verifyChain recomputes entry_hash over the claims
// (payload_digest here) and walks prev_hash links; its verify checks the
// signature and the claims' jti. The whole payload is signed.
var trustProofFormat = format{name: "trustproof", detect: isTrustProof, check: checkTrustProof, signs: jwsSigned, chain: &chainRule{
	hash: trustProofHash,
	link: linkRule{path: []string{"chain", "prev_hash"}, absent: linkMissing, null: linkBad, genesis: []string{genesisHash}},
}}

// trustProofMaterial lists the members of the canonical event material.
var trustProofMaterial = []string{"subject", "action", "resource", "policy", "result", "hashes", "timestamp", "jti"}

func isTrustProof(doc *canon.Value) bool {
	if !isJWS(doc) {
		return false
	}
	claims := jwsClaims(doc)
	if claims == nil {
		return false
	}
	ch := claims.Get("chain")
	return ch != nil && ch.Kind == canon.Object && ch.Get("entry_hash") != nil && claims.Get("jti") != nil
}

// trustProofEntryHash recomputes chain.entry_hash from the claims.
func trustProofEntryHash(claims *canon.Value) (string, error) {
	prev := str(claims.Get("chain"), "prev_hash")
	if !isHexHash(prev) {
		return "", errors.New("chain.prev_hash must be 64 hex digits")
	}
	var m canon.Value
	m.Kind = canon.Object
	for _, name := range trustProofMaterial {
		if v := claims.Get(name); v != nil {
			m.Members = append(m.Members, canon.Member{Name: name, Value: *v})
		}
	}
	b := []byte(strings.ToLower(prev))
	b, err := canon.RFC8785().Append(b, &m)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// trustProofHash is what a successor's prev_hash names: the entry hash
// recomputed over the claims, so links resolve over the content itself.
func trustProofHash(doc *canon.Value) (string, error) {
	claims := jwsClaims(doc)
	if claims == nil {
		return "", errors.New("the payload is not a JSON object")
	}
	return trustProofEntryHash(claims)
}

func checkTrustProof(c *check) {
	claims := jwsClaims(c.doc)
	f := &c.res.Fields
	f.ActionID = str(claims, "jti")
	f.ActionType = str(claims, "action")
	if s := claims.Get("subject"); s != nil && s.Kind == canon.Object {
		f.AgentID = str(s, "id")
	}
	if r := claims.Get("result"); r != nil && r.Kind == canon.Object {
		f.Decision = str(r, "decision")
	}
	f.IssuedAt = str(claims, "timestamp")
	jwsTimes(f, claims)
	if strings.TrimSpace(f.ActionID) == "" {
		c.fail(AxisStructure, ReasonMissingField, "jti must be a non-empty string")
	}
	c.notRun(AxisIssuerBind, "the key is found by the header's kid; the claims name no issuer")
	c.notRun(AxisAnchors, "TrustProof receipts carry no anchors")
	c.jwsVerify(claims)

	ch := claims.Get("chain")
	entry := str(ch, "entry_hash")
	got, err := trustProofEntryHash(claims)
	switch {
	case err != nil:
		c.fail(AxisStructure, ReasonBadField, err.Error())
		return
	case !isHexHash(entry):
		c.fail(AxisStructure, ReasonBadField, "chain.entry_hash must be 64 hex digits")
		return
	case got != strings.ToLower(entry):
		c.fail(AxisPayloadDigest, ReasonDigestMismatch, "the claims hash to entry_hash "+got+", chain.entry_hash says "+entry)
	default:
		c.pass(AxisPayloadDigest, "chain.entry_hash")
	}
	c.linkRoot = claims
	c.readLink()
	c.res.Fingerprints.ChainHash = got
}
