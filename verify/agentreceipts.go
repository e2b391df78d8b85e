package verify

import (
	"errors"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An agent-receipts AgentReceipt is a W3C Verifiable Credential whose
// proof (type Ed25519Signature2020) signs the RFC 8785 bytes of the
// receipt minus proof, directly, with no Unicode normalization (the SDKs
// never normalize). An integer beyond 2^53, which RFC 8785 cannot carry,
// is checked as the Python SDK signs it, verbatim (canon.AgentReceiptsPy()),
// and the signature's note says so. Optional members written as null are dropped first:
// the SDKs' WAL and HTTP emitters write every absent optional member as
// null, but sign without them, and spec v0.5.0 §7.1.1 has a verifier drop
// them, as the Python SDK's verify_receipt and hash_receipt do: every null
// object member at any depth goes (array items stay), except the one
// required-nullable member, credentialSubject.chain.previous_receipt_hash. proof.proofValue is multibase
// 'u' (base64url, no padding); any other base fails the signature.
// proof.verificationMethod names the key: a did:key carries the key in the
// identifier itself (self-asserted: it proves possession of the key, not
// who holds it), any other DID is looked up in a did map. The DID of the
// verification method must be the issuer's, or anyone could sign as a
// victim with a did:key of their own.
//
// Chain: credentialSubject.chain.previous_receipt_hash is "sha256:" + hex
// SHA-256 of the RFC 8785 bytes of the predecessor minus proof. It must be
// present: null on the genesis receipt, never omitted. A chain is one
// chain_id's: the SDKs' VerifyChain rejects receipts whose
// credentialSubject.chain.chain_id differs (spec §7.3.4).
var agentReceiptsFormat = format{name: "agentreceipts", detect: isAgentReceipt, check: checkAgentReceipt, chain: &chainRule{
	hash: agentReceiptChainHash,
	link: linkRule{path: []string{"credentialSubject", "chain", "previous_receipt_hash"}, absent: linkMissing, null: linkGenesis, prefix: "sha256:"},
	scope: func(name string, doc *canon.Value) string {
		return scopeKey(name, str(doc.Get("credentialSubject").Get("chain"), "chain_id"))
	},
}}

const agentReceiptProofType = "Ed25519Signature2020"

var agentReceiptRequired = []string{"@context", "id", "type", "version", "issuer", "issuanceDate", "credentialSubject", "proof"}

func isAgentReceipt(doc *canon.Value) bool {
	return doc.Get("proof") != nil && hasString(doc.Get("type"), "AgentReceipt")
}

// hasString reports whether v is an array holding the string s.
func hasString(v *canon.Value, s string) bool {
	if v == nil || v.Kind != canon.Array {
		return false
	}
	for i := range v.Items {
		if v.Items[i].Kind == canon.String && v.Items[i].Text == s {
			return true
		}
	}
	return false
}

// agentReceiptSigningInput returns the signed value, its bytes and the
// dialect that wrote them: RFC 8785, or, when RFC 8785 refuses an integer
// beyond 2^53, the Python SDK's form, which writes integers verbatim
// (canon.AgentReceiptsPy(); identical wherever RFC 8785 accepts). The SDK
// signs and hashes such receipts, and its verifier passes them; no other
// refusal is relaxed.
func agentReceiptSigningInput(doc *canon.Value) (canon.Value, []byte, canon.Dialect, error) {
	s := withoutMembers(doc, "proof")
	s = withoutOptionalNulls(&s, 0)
	b, err := canon.RFC8785().Append(nil, &s)
	if err == nil || !errors.Is(err, &canon.Error{Reason: canon.ReasonUnsafeInteger}) {
		return s, b, canon.RFC8785(), err
	}
	b, err = canon.AgentReceiptsPy().Append(nil, &s)
	return s, b, canon.AgentReceiptsPy(), err
}

// agentReceiptsPyNote names the form a receipt was checked in when RFC
// 8785 could not carry its integers.
const agentReceiptsPyNote = "signed bytes in the Python SDK's form: integers beyond 2^53, which RFC 8785 cannot carry, written verbatim as obsigna's canonicalize writes them"

// withoutOptionalNulls returns v without its null object members, at any
// depth, but for credentialSubject.chain.previous_receipt_hash; depth is
// how far v is along that path (0 the receipt, 1 credentialSubject, 2
// chain, -1 off it). What has no null member is returned as it is.
func withoutOptionalNulls(v *canon.Value, depth int) canon.Value {
	switch v.Kind {
	case canon.Array:
		var out []canon.Value
		for i := range v.Items {
			item := withoutOptionalNulls(&v.Items[i], -1)
			if out == nil && !sameValue(&item, &v.Items[i]) {
				out = append(make([]canon.Value, 0, len(v.Items)), v.Items[:i]...)
			}
			if out != nil {
				out = append(out, item)
			}
		}
		if out == nil {
			return *v
		}
		return canon.Value{Kind: canon.Array, Items: out}
	case canon.Object:
		var out []canon.Member
		for i := range v.Members {
			m := &v.Members[i]
			next := -1
			switch {
			case depth == 0 && m.Name == "credentialSubject":
				next = 1
			case depth == 1 && m.Name == "chain":
				next = 2
			}
			keep := m.Value.Kind != canon.Null || (depth == 2 && m.Name == "previous_receipt_hash")
			val := m.Value
			if keep {
				val = withoutOptionalNulls(&m.Value, next)
			}
			if out == nil && (!keep || !sameValue(&val, &m.Value)) {
				out = append(make([]canon.Member, 0, len(v.Members)), v.Members[:i]...)
			}
			if out != nil && keep {
				out = append(out, canon.Member{Name: m.Name, Value: val})
			}
		}
		if out == nil {
			return *v
		}
		return canon.Value{Kind: canon.Object, Members: out}
	}
	return *v
}

// sameValue reports whether withoutOptionalNulls returned its input: the
// same members or items, not a rebuilt copy.
func sameValue(a, b *canon.Value) bool {
	switch a.Kind {
	case canon.Object:
		return len(a.Members) == len(b.Members) && (len(a.Members) == 0 || &a.Members[0] == &b.Members[0])
	case canon.Array:
		return len(a.Items) == len(b.Items) && (len(a.Items) == 0 || &a.Items[0] == &b.Items[0])
	}
	return true
}

func agentReceiptChainHash(doc *canon.Value) (string, error) {
	_, b, _, err := agentReceiptSigningInput(doc)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func checkAgentReceipt(c *check) {
	doc := c.doc
	f := &c.res.Fields
	for _, name := range agentReceiptRequired {
		if doc.Get(name) == nil {
			c.fail(AxisStructure, ReasonMissingField, name+" is missing")
		}
	}
	if !hasString(doc.Get("type"), "VerifiableCredential") {
		c.fail(AxisStructure, ReasonBadField, "type must include VerifiableCredential and AgentReceipt")
	}
	issuer := doc.Get("issuer")
	issuerDID := ""
	switch {
	case issuer == nil:
	case issuer.Kind == canon.String:
		issuerDID = issuer.Text
	case issuer.Kind == canon.Object:
		issuerDID, _ = c.requireStr(issuer, "issuer.", "id")
		f.SessionID = str(issuer, "session_id")
	default:
		c.fail(AxisStructure, ReasonBadField, "issuer must be a DID or an object with an id")
	}
	f.IssuerID, f.AgentID = issuerDID, issuerDID
	f.IssuedAt = str(doc, "issuanceDate")
	f.ExpiresAt = str(doc, "expirationDate")
	subject := doc.Get("credentialSubject")
	if subject != nil && subject.Kind != canon.Object {
		c.fail(AxisStructure, ReasonBadField, "credentialSubject must be an object")
		subject = nil
	}
	action := subject.Get("action")
	f.ActionID = str(action, "id")
	f.ActionType = str(action, "type")
	f.ToolName = str(action, "tool_name")
	f.Decision = str(subject.Get("outcome"), "status")
	c.agentReceiptChain(subject)

	signed, msg, dialect, err := agentReceiptSigningInput(doc)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "receipt cannot be canonicalized: "+err.Error())
		return
	}
	c.res.Fingerprints.ChainHash = sha256Hex(msg)

	proof := doc.Get("proof")
	if proof == nil || proof.Kind != canon.Object {
		if proof != nil {
			c.fail(AxisStructure, ReasonBadField, "proof must be an object")
		}
		c.skip(AxisSignature, ReasonUncheckable, "no proof")
		return
	}
	typ, okType := c.requireStr(proof, "proof.", "type")
	vm, okVM := c.requireStr(proof, "proof.", "verificationMethod")
	pv, okPV := c.requireStr(proof, "proof.", "proofValue")
	f.KeyID, f.Signature = vm, pv
	if okType && typ != agentReceiptProofType {
		c.fail(AxisStructure, ReasonBadField, "proof.type is "+quoteShort(typ)+", not "+agentReceiptProofType)
	}
	if !okType || !okVM || !okPV || typ != agentReceiptProofType {
		c.skip(AxisSignature, ReasonUncheckable, "proof is not a usable "+agentReceiptProofType)
		return
	}
	vmDID, _, _ := strings.Cut(vm, "#")
	var key *keys.Key
	switch {
	case vmDID == issuerDID:
		c.pass(AxisIssuerBind, "verificationMethod is the issuer's DID")
		key = c.resolveDID(vm)
	case strings.HasPrefix(vmDID, "did:key:"):
		key = c.didKeyOfIssuer(vm, vmDID, issuerDID)
	default:
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, "proof.verificationMethod "+quoteShort(vmDID)+" is not the issuer's DID "+quoteShort(issuerDID))
		key = c.resolveDID(vm)
	}
	if key == nil {
		return
	}
	base, sig, err := sigalg.DecodeMultibase(pv)
	switch {
	case err == nil && base != 'u':
		c.fail(AxisSignature, ReasonBadEncoding, "proofValue must be multibase 'u' (base64url), not "+quoteShort(pv[:1]))
		return
	case err != nil:
		c.fail(AxisSignature, ReasonBadEncoding, "proofValue is not multibase base64url: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.Ed25519), msg, sig)
	if c.legacyFallback(agentReceiptsLegacyForms, key, doc, &signed, msg, sig) {
		return
	}
	c.hintNormalization(key, dialect, &signed, sig)
	if dialect == canon.AgentReceiptsPy() {
		c.noteSignature(agentReceiptsPyNote)
		c.noteFailure(agentReceiptsPyNote)
	}
	if c.res.Fields.KeySelfAsserted {
		c.noteSignature("key self-asserted by did:key (proves possession, not identity)")
	}
}

// agentReceiptsGoNote names the form a receipt was checked in when its
// RFC 8785 bytes did not verify and the Go SDK's older form did.
const agentReceiptsGoNote = "signed bytes in the agent-receipts Go SDK v0.1.0-v0.4.0 form (dialect agentreceipts-go-v0.4: & < > U+2028 U+2029 escaped as Go's json.Marshal does, names in code-point order), not RFC 8785"

// agentReceiptsNullsNote names the form a receipt was checked in when its
// bytes verified only with its null members kept.
const agentReceiptsNullsNote = "signed bytes in the agent-receipts TypeScript SDK form: RFC 8785 with the receipt's null members kept, as its signReceipt signs them (the spec, ADR-0009, drops optional nulls)"

// agentReceiptsLegacyForms are the older SDK releases' forms, in the order
// tried:
//   - the Go SDK v0.1.0-v0.4.0 (before ADR-0009), whose HashReceipt took
//     the same bytes;
//   - the TypeScript SDK, every release of which signs the receipt as its
//     caller built it, nulls included (signReceipt never dropped them);
//     until v0.3.0, whose receipts say version 0.1.0, its hashReceipt
//     hashed them so too, and from v0.4.0 it drops the optional nulls
//     before hashing, as the spec does.
var agentReceiptsLegacyForms = []legacyForm{
	{
		note:      agentReceiptsGoNote,
		bytes:     func(_, signed *canon.Value) ([]byte, error) { return canon.AgentReceiptsGo().Append(nil, signed) },
		chainHash: func(*canon.Value) bool { return true },
	},
	{
		note: agentReceiptsNullsNote,
		bytes: func(doc, _ *canon.Value) ([]byte, error) {
			s := withoutMembers(doc, "proof")
			return canon.RFC8785().Append(nil, &s)
		},
		chainHash: func(doc *canon.Value) bool { return str(doc, "version") == "0.1.0" },
	},
}

// didKeyOfIssuer resolves a did:key verification method that is not the
// issuer's DID. The SDKs sign and verify such receipts (a did:agent issuer
// signing with a did:key), but the did:key, chosen by whoever signed,
// binds no one by itself: it is the issuer's key only when the key files
// list that key for the issuer's DID (a did map entry), and the entry's
// status is then the key's. Otherwise the receipt is INCOMPLETE
// (unknown_key, or no_keys without key files), as for a W3C Data Integrity
// proof; its signature is still checked, so a forgery still fails.
func (c *check) didKeyOfIssuer(vm, vmDID, issuerDID string) *keys.Key {
	key := c.resolveDID(vm)
	if key == nil {
		return nil
	}
	c.res.Fields.KeySelfAsserted = false
	if listed, err := c.v.keys.ByID(issuerDID); err == nil && listed.Public != nil && listed.Public.Equal(key.Public) {
		c.pass(AxisIssuerBind, "verificationMethod "+quoteShort(vmDID)+" is the key the key files list for the issuer "+quoteShort(issuerDID))
		c.pass(AxisIssuerKey, listed.Label())
		c.keyStatus(listed)
		return key
	}
	r := ReasonUnknownKey
	if c.v.keys.Len() == 0 {
		r = ReasonNoKeys
	}
	why := "did:key " + quoteShort(vmDID) + " is not the issuer " + quoteShort(issuerDID) + " and no key file lists its key for the issuer: a self-asserted key binds no one"
	c.skip(AxisIssuerBind, r, why)
	c.skip(AxisIssuerKey, r, why)
	return key
}

// agentReceiptChain reads credentialSubject.chain.previous_receipt_hash.
func (c *check) agentReceiptChain(subject *canon.Value) {
	chain := subject.Get("chain")
	if chain == nil || chain.Kind != canon.Object {
		if chain != nil {
			c.fail(AxisStructure, ReasonBadField, "credentialSubject.chain must be an object")
		} else {
			c.fail(AxisStructure, ReasonMissingField, "credentialSubject.chain is missing")
		}
		return
	}
	c.res.Fields.Step = integer(chain, "sequence")
	// A terminal receipt ends its chain (spec §7.3.3): complete, unless
	// chain.status says interrupted, as VerifyChain's Status reads it.
	if t := chain.Get("terminal"); t != nil && t.Kind == canon.True && c.res.Fields.Step != nil {
		kind := LifecycleClose
		if str(chain, "status") == "interrupted" {
			kind = LifecycleInterrupted
		}
		c.res.Fields.Lifecycle = &Lifecycle{Kind: kind, FinalSeq: *c.res.Fields.Step}
	}
	c.readLink()
}

// resolveDID finds the key for a verification method and records the
// issuer_key and key_status axes; nil when there is none. A did:key needs
// no directory: its key is the identifier, which the receipt chose itself.
func (c *check) resolveDID(vm string) *keys.Key {
	key, err := c.v.keys.ResolveDID(vm)
	if err != nil {
		var ke *keys.Error
		if strings.HasPrefix(vm, "did:key:") && errors.As(err, &ke) {
			r := ReasonMalformedKey
			if ke.Reason == keys.ReasonUnsupportedAlg {
				r = ReasonUnsupportedAlg
			}
			c.fail(AxisIssuerKey, r, err.Error())
			c.skip(AxisSignature, ReasonUncheckable, "no key")
			c.skip(AxisKeyStatus, ReasonUncheckable, "no key")
			return nil
		}
		c.resolveFailed(err)
		return nil
	}
	listed := false
	if strings.HasPrefix(vm, "did:key:") {
		_, lerr := c.v.keys.ByID(vm)
		listed = lerr == nil
	}
	if strings.HasPrefix(vm, "did:key:") && !listed {
		c.res.Fields.KeySelfAsserted = true
		c.pass(AxisIssuerKey, "did:key: the key is the identifier itself (self-asserted)")
		c.notRun(AxisKeyStatus, "a did:key has no lifecycle status")
	} else {
		c.pass(AxisIssuerKey, key.Label())
		c.keyStatus(key)
	}
	c.res.Fields.KeyID = vm
	return key
}
