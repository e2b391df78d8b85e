package verify

import (
	"bytes"
	"crypto/sha256"
	"crypto/sha512"
	"errors"
	"slices"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A W3C Data Integrity document is any JSON object with an embedded proof
// of type DataIntegrityProof (a Verifiable Credential, an agent's receipt
// written as one). Two cryptosuites are verified, both over RFC 8785:
// eddsa-jcs-2022 (Ed25519) and ecdsa-jcs-2019 (P-256 with SHA-256, P-384
// with SHA-384). The signed bytes are hash(JCS(proof minus proofValue)) ||
// hash(JCS(document minus proof)), the document taking the proof's
// @context when the proof has one (which the document's own @context
// must start with); proofValue is multibase base58btc ('z') of the raw
// signature (r||s for ECDSA). The receipt carries no chain link.
//
// proof.verificationMethod names the key. A key the key files list under
// that DID (a did:key line, a did map) is trusted as any listed key. A
// did:key no key file lists is self-asserted: it proves possession of
// the key, not identity, so it is accepted (key_self_asserted) only when
// it is the document's own issuer, as for agentreceipts; otherwise the
// document could claim any issuer, and the key is unknown (INCOMPLETE).
var dataIntegrityFormat = format{name: "w3c-data-integrity", detect: isDataIntegrity, check: checkDataIntegrity}

const (
	dataIntegrityProofType = "DataIntegrityProof"
	// dataIntegrityPurpose is the proof purpose of an issuer's statement;
	// a proof for another purpose (authentication, a challenge answered)
	// is not the issuer asserting the document.
	dataIntegrityPurpose = "assertionMethod"
)

// dataIntegritySuites are the cryptosuites checked, with the key
// algorithms each allows.
var dataIntegritySuites = map[string][]sigalg.Alg{
	"eddsa-jcs-2022": {sigalg.Ed25519},
	"ecdsa-jcs-2019": {sigalg.ES256, sigalg.ES384},
}

func isDataIntegrity(doc *canon.Value) bool {
	proof := doc.Get("proof")
	if proof == nil || isAgentReceipt(doc) {
		return false
	}
	if proof.Kind == canon.Array {
		for i := range proof.Items {
			if str(&proof.Items[i], "type") == dataIntegrityProofType {
				return true
			}
		}
		return false
	}
	return str(proof, "type") == dataIntegrityProofType
}

func checkDataIntegrity(c *check) {
	doc := c.doc
	f := &c.res.Fields
	f.ActionID = str(doc, "id")
	switch issuer := doc.Get("issuer"); {
	case issuer == nil:
	case issuer.Kind == canon.String:
		f.IssuerID = issuer.Text
	case issuer.Kind == canon.Object:
		f.IssuerID = str(issuer, "id")
	default:
		c.fail(AxisStructure, ReasonBadField, "issuer must be a string or an object with an id")
	}
	proof := doc.Get("proof")
	if proof.Kind != canon.Object {
		c.skip(AxisSignature, ReasonUnsupported, "a set or chain of proofs is not checked, only a single proof object")
		return
	}
	f.IssuedAt = str(proof, "created")
	f.ExpiresAt = str(proof, "expires")
	for _, name := range []string{"created", "expires"} {
		if v := proof.Get(name); v != nil && v.Kind != canon.String {
			c.fail(AxisStructure, ReasonBadField, "proof."+name+" must be a string, not "+v.Kind.String())
		}
	}
	suite, okSuite := c.requireStr(proof, "proof.", "cryptosuite")
	vm, okVM := c.requireStr(proof, "proof.", "verificationMethod")
	purpose, okPurpose := c.requireStr(proof, "proof.", "proofPurpose")
	pv, okPV := c.requireStr(proof, "proof.", "proofValue")
	f.KeyID, f.Signature = vm, pv
	if okPurpose && purpose != dataIntegrityPurpose {
		c.fail(AxisStructure, ReasonBadField, "proof.proofPurpose is "+quoteShort(purpose)+", not "+dataIntegrityPurpose)
	}
	algs, known := dataIntegritySuites[suite]
	if okSuite && !known {
		c.skip(AxisSignature, ReasonUnsupportedAlg, "cryptosuite "+quoteShort(suite)+" is not checked (only eddsa-jcs-2022 and ecdsa-jcs-2019)")
		return
	}
	if !okSuite || !okVM || !okPV {
		c.skip(AxisSignature, ReasonUncheckable, "proof lacks what its check needs")
		return
	}
	unsecured, ok := c.dataIntegrityDocument(doc, proof)
	if !ok {
		return
	}
	key := c.dataIntegrityKey(vm, f.IssuerID)
	if key == nil {
		return
	}
	hash := dataIntegrityHash(key.Alg)
	if !slices.Contains(algs, key.Alg) || hash == nil {
		c.fail(AxisSignature, ReasonAlgMismatch, "cryptosuite "+suite+" does not sign with "+string(key.Alg)+" keys")
		return
	}
	config := withoutMembers(proof, "proofValue")
	configJCS, err := canon.RFC8785().Append(nil, &config)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "proof cannot be canonicalized: "+err.Error())
		return
	}
	docJCS, err := canon.RFC8785().Append(c.canonBuf[:0], &unsecured)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "document cannot be canonicalized: "+err.Error())
		return
	}
	c.canonBuf = docJCS
	base, sig, err := sigalg.DecodeMultibase(pv)
	switch {
	case err != nil:
		c.fail(AxisSignature, ReasonBadEncoding, "proofValue is not multibase: "+err.Error())
		return
	case base != 'z':
		c.fail(AxisSignature, ReasonBadEncoding, "proofValue must be multibase 'z' (base58btc), not "+quoteShort(pv[:1]))
		return
	}
	msg := append(hash(configJCS), hash(docJCS)...)
	c.verifySignature(key, "", msg, sig)
	c.noteSignature(suite)
	if f.KeySelfAsserted {
		c.noteSignature("key self-asserted by did:key (proves possession, not identity)")
	}
}

// dataIntegrityDocument is the document as signed: without its proof,
// and with the proof's @context, if it has one, once the document's own
// is checked to start with it. ok is false when that check failed.
func (c *check) dataIntegrityDocument(doc, proof *canon.Value) (canon.Value, bool) {
	unsecured := withoutMembers(doc, "proof")
	pctx := proof.Get("@context")
	if pctx == nil {
		return unsecured, true
	}
	if !contextStartsWith(doc.Get("@context"), pctx) {
		c.fail(AxisSignature, ReasonBadField, "the document's @context does not start with the proof's")
		return canon.Value{}, false
	}
	unsecured = withoutMembers(&unsecured, "@context")
	unsecured.Members = append(unsecured.Members, canon.Member{Name: "@context", Value: *pctx})
	return unsecured, true
}

// contextStartsWith reports whether the values of want (an array, or one
// value) come first in have, in the same order.
func contextStartsWith(have, want *canon.Value) bool {
	if have == nil {
		return false
	}
	items := func(v *canon.Value) []canon.Value {
		if v.Kind == canon.Array {
			return v.Items
		}
		return []canon.Value{*v}
	}
	h, w := items(have), items(want)
	if len(w) > len(h) {
		return false
	}
	for i := range w {
		a, errA := canon.RFC8785().Append(nil, &h[i])
		b, errB := canon.RFC8785().Append(nil, &w[i])
		if errA != nil || errB != nil || !bytes.Equal(a, b) {
			return false
		}
	}
	return true
}

// dataIntegrityKey finds the key of a verification method and records the
// issuer_key and key_status axes; nil when there is none. See the format's
// comment for when an unlisted did:key is accepted.
func (c *check) dataIntegrityKey(vm, issuer string) *keys.Key {
	did, frag, hasFrag := strings.Cut(vm, "#")
	isDIDKey := strings.HasPrefix(did, "did:key:")
	if key, err := c.v.keys.ByID(vm); err == nil {
		// A did:key line is the key it names by construction; a did map
		// may list any key under a did:key, and a fragment may name
		// another key than the DID: neither is this did:key's key.
		if isDIDKey && ((hasFrag && "did:key:"+frag != did) || !namesKey(did, key)) {
			c.noKey(ReasonMalformedKey, key.Label()+" is not the key "+quoteShort(vm)+" names")
			return nil
		}
		c.pass(AxisIssuerKey, key.Label())
		c.keyStatus(key)
		return key
	} else if !isDIDKey {
		c.resolveFailed(err)
		return nil
	}
	named, err := keys.ParseDIDKey(vm)
	if err != nil {
		r := ReasonMalformedKey
		if errors.Is(err, keys.ErrUnsupportedAlg) {
			r = ReasonUnsupportedAlg
		}
		c.noKey(r, err.Error())
		return nil
	}
	c.notRun(AxisKeyStatus, "a did:key has no lifecycle status")
	if did != issuer {
		// The signature is still checked: one that fails is a FAIL
		// whoever holds the key.
		r, why := ReasonUnknownKey, "did:key "+quoteShort(did)+" is in no key file and is not the issuer "+quoteShort(issuer)+": a self-asserted key binds no one"
		if c.v.keys.Len() == 0 {
			r = ReasonNoKeys
		}
		c.skip(AxisIssuerKey, r, why)
		return named
	}
	c.res.Fields.KeySelfAsserted = true
	c.pass(AxisIssuerKey, "did:key: the issuer's key is the identifier itself (self-asserted)")
	return named
}

// namesKey reports whether the did:key did encodes key. A key loaded from
// a did:key is it by construction; another is encoded and compared, which
// unlike decoding a compressed point needs no square root.
func namesKey(did string, key *keys.Key) bool {
	if key.Source.Format == keys.FormatDIDKey && key.KID == did {
		return true
	}
	if key.Public == nil {
		return false
	}
	enc, err := keys.DIDKey(key.Public)
	return err == nil && enc == did
}

// noKey fails the issuer_key axis for a key that cannot be used; the
// signature and key status are then not checked.
func (c *check) noKey(r Reason, note string) {
	c.fail(AxisIssuerKey, r, note)
	c.skip(AxisSignature, ReasonUncheckable, "no key")
	c.skip(AxisKeyStatus, ReasonUncheckable, "no key")
}

// dataIntegrityHash is the hash the ecdsa and eddsa JCS suites pair with a
// key algorithm: SHA-384 for P-384, SHA-256 otherwise.
func dataIntegrityHash(alg sigalg.Alg) func([]byte) []byte {
	switch alg {
	case sigalg.Ed25519, sigalg.ES256:
		return func(b []byte) []byte { h := sha256.Sum256(b); return h[:] }
	case sigalg.ES384:
		return func(b []byte) []byte { h := sha512.Sum384(b); return h[:] }
	}
	return nil
}
