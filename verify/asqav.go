package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// Asqav receipts come in two shapes:
//
//   - payload mode, {payload, signature: {alg, kid, sig}, anchors}: the
//     signature covers the canonical bytes of payload itself (v1 and the v2
//     signer payload alike; v2 simply carries signer and _asqav_tid inside);
//   - hash mode, a flat record with payload null and mode "hash", its
//     signature in signature_b64 or signature: the signature covers the
//     canonical form of the fixed 11-member object built by
//     hashModeSigningInput.
//
// The canonical dialect is the Asqav one in force when the receipt was
// issued (code-point member order before 2026-09-02T18:05:09Z).
//
// Chain (payload mode only): payload.previousReceiptHash is the hex SHA-256
// of the predecessor's canonical payload, all zeros on the first receipt.
// It is a required member, as in both SDK verifiers (REQUIRED_FIELDS):
// absent fails the structure axis; null names no predecessor, and the
// chain is not checked (the SDKs skip it and pass).
// A chain is one agent session's: the SDKs' replay (replay.py
// _build_timeline, replay.ts verifyChain) walks the receipts of one
// agent_id and session_id, seeded per chain; the reference verifiers check
// the hash alone, and a predecessor of another format fails there too.
var asqavNativeFormat = format{name: "asqav-native", detect: isAsqavPayload, check: checkAsqavPayload, signs: []string{"payload", "signature"}, chain: &chainRule{
	hash: asqavChainHash,
	link: linkRule{path: []string{"payload", "previousReceiptHash"}, absent: linkBad, null: linkUnnamed,
		genesis: []string{genesisHash}, seedIsLink: true, hashOrNone: true},
	scope: func(name string, doc *canon.Value) string {
		p := doc.Get("payload")
		return scopeKey(name, str(p, "issuer_id"), str(p, "org_id"), str(p, "agent_id"), str(p, "session_id"))
	},
}}

var asqavHashFormat = format{name: "asqav-hash", detect: isAsqavHash, check: checkAsqavHash, signs: asqavHashSigned}

// isAsqavPayload claims the Asqav envelopes but not the ACTA shape, which
// is also {payload, signature: {sig}}: an ACTA signature is hex and
// carries no anchors, where an Asqav one is base64 (isACTASigText); nor an
// ACTA artifact's v2 envelope, whose payload sits beside an algorithm and
// a signature string as a hosted Asqav response's does, but with a v, a
// kid and an Ed25519 signature in hex.
func isAsqavPayload(doc *canon.Value) bool {
	return asqavShapeOf(doc) != asqavNoEnvelope && !isACTA(doc) && !isACTAArtifact(doc)
}

// asqavShape is how a payload-mode receipt carries its signature. The
// hosted API answers with two shapes besides the canonical envelope; the
// reference verifier normalises both to {payload, signature: {alg, kid,
// sig}} (testdata/asqav/axis-parity-cases.json, section normalise), and so
// does this tool. A bare payload with no envelope is no receipt: there is
// no signature to check.
type asqavShape int

const (
	asqavNoEnvelope     asqavShape = iota
	asqavCanonical                 // {payload, signature: {alg, kid, sig}, anchors}
	asqavHostedEnvelope            // {payload, signature_envelope: {alg, kid, sig}, signature: sig, ...}
	asqavHostedFlat                // {payload, signature: sig, algorithm, anchors}: kid is the payload's issuer_id
)

func asqavShapeOf(doc *canon.Value) asqavShape {
	p := doc.Get("payload")
	if p == nil || p.Kind != canon.Object {
		return asqavNoEnvelope
	}
	s := doc.Get("signature")
	if s != nil && s.Kind == canon.Object && s.Get("sig") != nil {
		return asqavCanonical
	}
	if e := doc.Get("signature_envelope"); e != nil && e.Kind == canon.Object && e.Get("sig") != nil {
		return asqavHostedEnvelope
	}
	if s != nil && s.Kind == canon.String && str(doc, "algorithm") != "" {
		return asqavHostedFlat
	}
	return asqavNoEnvelope
}

// asqavSignatureObject is the receipt's signature object as the reference
// normalises it: the canonical signature or the hosted signature_envelope
// as written, or, for a flat hosted response, {alg: algorithm, kid:
// payload.issuer_id, sig: signature} with absent members null.
func asqavSignatureObject(doc *canon.Value, shape asqavShape) canon.Value {
	switch shape {
	case asqavCanonical:
		return *doc.Get("signature")
	case asqavHostedEnvelope:
		return *doc.Get("signature_envelope")
	}
	member := func(name string, v *canon.Value) canon.Member {
		if v == nil {
			return canon.Member{Name: name, Value: canon.Value{Kind: canon.Null}}
		}
		return canon.Member{Name: name, Value: *v}
	}
	return canon.ObjectValue(
		member("alg", doc.Get("algorithm")),
		member("kid", doc.Get("payload").Get("issuer_id")),
		member("sig", doc.Get("signature")))
}

// asqavEnvelopeDigest is the hex SHA-256 of the canonical normalised
// envelope {payload, signature}, which the reference reports the anchors
// as binding; a document that is no envelope is hashed as it is. anchors
// and any other member are outside it.
func asqavEnvelopeDigest(doc *canon.Value) (string, error) {
	env := doc
	issued := firstStr(doc, "issued_at", "timestamp")
	if shape := asqavShapeOf(doc); shape != asqavNoEnvelope {
		p := doc.Get("payload")
		issued = firstStr(p, "issued_at", "timestamp")
		e := canon.ObjectValue(
			canon.Member{Name: "payload", Value: *p},
			canon.Member{Name: "signature", Value: asqavSignatureObject(doc, shape)})
		env = &e
	}
	b, err := asqavDialect(issued).Append(nil, env)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

// asqavEnvelopeDigestReusing is asqavEnvelopeDigest(doc) for a check that
// has already written the payload's canonical form (payloadCanon, in
// dialect payloadIn; payloadIn is the zero Dialect when it has not) for the signature:
// when the envelope is written in the same dialect, those bytes are hashed
// as they are instead of written again. Either member order puts
// "payload" before "signature", so the envelope's canonical form is
// {"payload":P,"signature":S}.
func asqavEnvelopeDigestReusing(doc *canon.Value, payloadCanon []byte, payloadIn canon.Dialect) (string, error) {
	shape := asqavShapeOf(doc)
	if shape == asqavNoEnvelope || payloadIn == (canon.Dialect{}) {
		return asqavEnvelopeDigest(doc)
	}
	d := asqavDialect(firstStr(doc.Get("payload"), "issued_at", "timestamp"))
	if d != payloadIn {
		return asqavEnvelopeDigest(doc)
	}
	sig := asqavSignatureObject(doc, shape)
	b, err := d.Append([]byte(`,"signature":`), &sig)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(`{"payload":`))
	h.Write(payloadCanon)
	h.Write(append(b, '}'))
	return hex.EncodeToString(h.Sum(nil)), nil
}

func isAsqavHash(doc *canon.Value) bool {
	p := doc.Get("payload")
	return (p == nil || p.Kind == canon.Null) && str(doc, "mode") == "hash" &&
		(doc.Get("signature_b64") != nil || doc.Get("signature") != nil)
}

// hashModeSignatureMember names the member a hash-mode record carries its
// signature in: signature_b64, or signature when signature_b64 is absent,
// null or empty, as both reference verifiers read it
// (signature_b64 || signature).
func hashModeSignatureMember(doc *canon.Value) string {
	if v := doc.Get("signature_b64"); v != nil && v.Kind != canon.Null && !(v.Kind == canon.String && v.Text == "") {
		return "signature_b64"
	}
	if doc.Get("signature") != nil {
		return "signature"
	}
	return "signature_b64"
}

// asqavDialect picks the member order in force at the receipt's issue time;
// a receipt without a readable time gets the current order.
func asqavDialect(issued string) canon.Dialect {
	if t, ok := parseTime(issued); ok {
		return canon.AsqavAt(t)
	}
	return canon.Asqav()
}

// asqavChainHash is what a successor names in previousReceiptHash: the hex
// SHA-256 of the predecessor's canonical payload.
func asqavChainHash(doc *canon.Value) (string, error) {
	p := doc.Get("payload")
	d := asqavDialect(asqavIssuedText(p))
	b, err := d.Append(nil, p)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func checkAsqavPayload(c *check) {
	p := c.doc.Get("payload")
	f := &c.res.Fields
	f.ActionID = str(p, "action_id")
	f.AgentID = str(p, "agent_id")
	f.IssuerID = str(p, "issuer_id")
	f.OrgID = str(p, "org_id")
	f.SessionID = str(p, "session_id")
	f.Step = integer(p, "step")
	f.ActionType = str(p, "action_type")
	f.ToolName = str(p, "tool_name")
	f.ToolFingerprint = str(p, "tool_fingerprint")
	f.Nonce = str(p, "nonce")
	f.IssuedAt, f.ExpiresAt = c.asqavTimes(p)
	f.Decision = firstStr(p, "decision", "policy_decision")

	d := asqavDialect(f.IssuedAt)
	// The context's canonical form, which both digests hash, is part of
	// the payload's: it is found there rather than written again.
	ctx := p.Get("context")
	msg, ctxStart, ctxEnd, err := d.AppendMarked(c.canonBuf, p, ctx)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "payload cannot be canonicalized: "+err.Error())
		return
	}
	c.canonBuf, c.payloadIn = msg, d
	sum := sha256.Sum256(msg)
	c.res.Fingerprints.ChainHash = hex.EncodeToString(sum[:])

	alg, kid, sigText, okKid, okSig := c.asqavSignatureFields(p)
	f.KeyID, f.Signature = kid, sigText
	if okKid && okSig {
		c.asqavSignature(kid, f.AgentID, f.IssuerID, f.OrgID, p.Get("issuer_id"), alg, msg, sigText)
	}

	c.readLink()
	var ctxCanon []byte
	if ctxEnd > 0 && ctx.Kind != canon.Null { // null is hashed as {}
		ctxCanon = msg[ctxStart:ctxEnd]
	}
	c.asqavDigests(d, p, ctx, ctxCanon)
	c.asqavAnchors()
}

// asqavSignatureFields reads alg, kid and sig from whichever envelope the
// receipt uses (asqavShape).
func (c *check) asqavSignatureFields(p *canon.Value) (alg, kid, sig string, okKid, okSig bool) {
	switch shape := asqavShapeOf(c.doc); shape {
	case asqavHostedFlat:
		// The flat hosted response names no key id; the reference reads
		// the payload's issuer_id in its place.
		alg = str(c.doc, "algorithm")
		kid, okKid = c.requireStr(p, "payload.", "issuer_id")
		sig, okSig = c.requireStr(c.doc, "", "signature")
	default:
		obj, where := c.doc.Get("signature"), "signature."
		if shape == asqavHostedEnvelope {
			obj, where = c.doc.Get("signature_envelope"), "signature_envelope."
		}
		alg, _ = c.requireStr(obj, where, "alg")
		kid, okKid = c.requireStr(obj, where, "kid")
		sig, okSig = c.requireStr(obj, where, "sig")
	}
	return alg, kid, sig, okKid, okSig
}

// asqavTimes reads the payload's issue time (issued_at, else timestamp)
// and expiry. A member that is present but not a non-empty string cannot be
// read and fails its own axis here, as in the reference verifier: skew for
// issued_at, expiry (advisory, failing closed) for expires_at. A null
// issued_at reads as absent; a null expires_at is unreadable, since the
// reference fails it ("unreadable expires_at None").
func (c *check) asqavTimes(p *canon.Value) (issued, expires string) {
	iv := asqavIssuedValue(p)
	switch {
	case iv == nil || iv.Kind == canon.Null:
	case iv.Kind != canon.String || iv.Text == "":
		c.fail(AxisSkew, ReasonBadField, "unparseable issued_at "+jsonText(iv))
	default:
		issued = iv.Text
	}
	switch ev := p.Get("expires_at"); {
	case ev == nil:
	case ev.Kind != canon.String || ev.Text == "":
		c.fail(AxisExpiry, ReasonBadField, "unreadable expires_at "+jsonText(ev))
	default:
		expires = ev.Text
	}
	return issued, expires
}

// asqavSignature resolves the key in the reference order and verifies.
//
// claimedIssuer is what the receipt says its issuer is: the payload's
// issuer_id, or a hash-mode record's org_id.
//
// When the agent bind selects several keys (an agent's old and new key
// after a rotation, both under the org id as kid), the receipt is judged
// with the first whose signature verifies, key status included; when none
// does, with the first, as a single key would be.
func (c *check) asqavSignature(kid, agentID, issuerID, orgID string, claimedIssuer *canon.Value, alg string, msg []byte, sigText string) {
	cands, err := c.v.keys.ResolveAsqavCandidates(kid, agentID, issuerID, orgID)
	if err != nil {
		c.resolveFailed(err)
		return
	}
	sig, sigErr := sigalg.AppendBase64Any(c.sigBuf, sigText)
	if sigErr == nil {
		c.sigBuf = sig
	}
	key, note := cands[0], cands[0].Label()
	if len(cands) > 1 && sigErr == nil {
		if k := firstVerifying(cands, alg, msg, sig); k != nil {
			key = k
			note = k.Label() + ", of the " + itoa(len(cands)) + " keys bound to agent " + quoteShort(agentID) + " the one whose signature verifies"
		}
	}
	c.pass(AxisIssuerKey, note)
	c.res.Fields.KeyID = key.KID
	c.issuerBind(key, claimedIssuer)
	c.keyStatus(key)
	if sigErr != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not base64: "+sigErr.Error())
		return
	}
	c.verifySignature(key, alg, msg, sig)
}

// firstVerifying returns the first of keys whose algorithm is the one the
// receipt claims (any, when it claims none) and whose signature over msg
// verifies, or nil.
func firstVerifying(ks []*keys.Key, claimed string, msg, sig []byte) *keys.Key {
	var want sigalg.Alg
	if claimed != "" {
		a, err := sigalg.ParseAlg(claimed)
		if err != nil {
			return nil
		}
		want = a
	}
	for _, k := range ks {
		if k.Public != nil && (claimed == "" || k.Alg == want) && k.Verify(msg, sig) == nil {
			return k
		}
	}
	return nil
}

// asqavDigests recomputes payload_digest (from ctx, the payload's context,
// nil when absent) and the advisory action_ref (from action_type and
// context).
func (c *check) asqavDigests(d canon.Dialect, p, ctx *canon.Value, ctxCanon []byte) {
	// Both digests follow from one canonicalization of the context, or
	// from ctxCanon, its canonical form under d if already written.
	var canonCtx fingerprint.AsqavContext
	var ctxErr error
	switch {
	case ctxCanon != nil:
		canonCtx = fingerprint.AsqavContextOf(d, ctxCanon)
	case ctx != nil:
		canonCtx, ctxErr = fingerprint.CanonicalContext(d, ctx)
	}
	if pd := p.Get("payload_digest"); pd != nil {
		want := str(pd, "hash")
		size := integer(pd, "size")
		switch {
		case pd.Kind != canon.Object || want == "" || size == nil:
			c.fail(AxisPayloadDigest, ReasonBadField, "payload_digest must be {hash, size}")
		case ctx == nil:
			if *size == 0 && want == hex.EncodeToString(sha256.New().Sum(nil)) {
				c.pass(AxisPayloadDigest, "no context; digest of nothing")
			} else {
				c.notRun(AxisPayloadDigest, "context not carried (hash-only mode)")
			}
		case ctxErr != nil:
			c.fail(AxisPayloadDigest, ReasonMalformed, ctxErr.Error())
		default:
			got := canonCtx.Digest()
			if got.Hash != normalizeHash(want) || int64(got.Size) != *size {
				c.fail(AxisPayloadDigest, ReasonDigestMismatch, "context hashes to "+got.Hash+", payload_digest says "+want)
			} else {
				c.pass(AxisPayloadDigest, "")
			}
			c.res.Fingerprints.PayloadDigest = &PayloadDigest{Hash: got.Hash, Size: got.Size}
		}
	} else {
		c.notRun(AxisPayloadDigest, "no payload_digest")
	}

	at, ref := p.Get("action_type"), str(p, "action_ref")
	if at == nil || ctx == nil || ref == "" {
		c.notRun(AxisActionRef, "needs action_type, context and action_ref")
		return
	}
	if ctxErr != nil {
		c.fail(AxisActionRef, ReasonMalformed, ctxErr.Error())
		return
	}
	got, err := canonCtx.Action(at)
	switch {
	case err != nil:
		c.fail(AxisActionRef, ReasonMalformed, err.Error())
	case got != ref:
		c.fail(AxisActionRef, ReasonActionRefMismatch, "recomputed "+got)
	default:
		c.pass(AxisActionRef, "")
	}
	if err == nil {
		c.res.Fingerprints.ActionRef = got
	}
}

// asqavAnchors checks the shape of the unsigned anchors list as the
// reference's check_anchors does: anchors must be a list; each entry an
// object (its type may be anything, or absent) whose value is a string of
// genuine base64 (safeBase64). Every entry is judged and named in the
// note; one bad entry fails the axis. No anchors (absent, null or an empty
// list) is NOT_RUN, where the reference says SKIPPED: a receipt needs no
// anchors to pass.
func (c *check) asqavAnchors() {
	a := c.doc.Get("anchors")
	if a == nil || a.Kind == canon.Null || (a.Kind == canon.Array && len(a.Items) == 0) {
		c.notRun(AxisAnchors, "no anchors on this receipt")
		return
	}
	if a.Kind != canon.Array {
		c.fail(AxisAnchors, ReasonBadAnchor, "anchors field is not a list (got "+a.Kind.String()+")")
		return
	}
	var note strings.Builder
	if asqavShapeOf(c.doc) != asqavNoEnvelope {
		if d, err := asqavEnvelopeDigestReusing(c.doc, c.canonBuf, c.payloadIn); err == nil {
			note.WriteString("anchors bind envelope digest sha256:" + d[:16] + "..")
		}
	}
	bad := false
	for i := range a.Items {
		an := &a.Items[i]
		if note.Len() > 0 {
			note.WriteString("; ")
		}
		if an.Kind != canon.Object {
			bad = true
			note.WriteString("anchor " + itoa(i) + ": malformed entry (a " + an.Kind.String() + ", not an object)")
			continue
		}
		name := "?"
		if t := an.Get("type"); t != nil {
			name = jsonText(t)
		}
		if v := an.Get("value"); v != nil && v.Kind == canon.String && safeBase64(v.Text) {
			note.WriteString(name + ": value present, base64-ok")
		} else {
			bad = true
			note.WriteString(name + ": value missing or not base64")
		}
	}
	if bad {
		c.fail(AxisAnchors, ReasonBadAnchor, note.String())
		return
	}
	c.pass(AxisAnchors, note.String()+" (shape only)")
}

// safeBase64 is the reference's _safe_b64, pinned value by value by
// testdata/asqav/anchor-value-cases.json: s is base64 in one alphabet
// (standard or URL, not both), with padding optional but never more than
// the length needs ("MTIzNA=" passes, "AAAA=" does not), nothing else
// (no whitespace, line breaks or non-ASCII), and at least one decoded
// byte. Unused trailing bits are not checked ("ab" passes), as Python's
// decoder does not check them.
func safeBase64(s string) bool {
	body := strings.TrimRight(s, "=")
	rem := len(body) % 4
	if body == "" || rem == 1 || len(s)-len(body) > (4-rem)%4 {
		return false
	}
	std, url, bad := sigalg.Base64Alphabets(body)
	return bad < 0 && !(std && url)
}

// hashModeMembers is the fixed signing input of a hash-mode record, in the
// order written (the dialect sorts them).
var hashModeMembers = []string{"v", "mode", "hash", "hash_algo", "metadata", "server_timestamp",
	"action_id", "agent_id", "org_id", "policy_digest", "policy_decision"}

// asqavHashSigned are a hash-mode record's members its signature covers,
// the signature's own included: key_id, algorithm, tool_name and
// tool_fingerprint, which the record also carries, are outside it.
var asqavHashSigned = append(slices.Clone(hashModeMembers), "signature", "signature_b64")

// hashModeSigningInput builds {v: 1, mode: "hash", hash, hash_algo (empty
// or absent: "sha256"), metadata (absent: {}), server_timestamp, action_id,
// agent_id, org_id, policy_digest, policy_decision}, absent members null.
func hashModeSigningInput(doc *canon.Value) canon.Value {
	obj := canon.Value{Kind: canon.Object}
	for _, name := range hashModeMembers {
		var v canon.Value
		switch name {
		case "v":
			v = canon.Value{Kind: canon.Number, Text: "1"}
		case "mode":
			v = canon.StringValue("hash")
		case "hash_algo":
			v = canon.StringValue("sha256")
			if s := str(doc, name); s != "" {
				v = canon.StringValue(s)
			}
		case "metadata":
			v = canon.EmptyObject()
			if m := doc.Get(name); m != nil {
				v = *m
			}
		default:
			if m := doc.Get(name); m != nil {
				v = *m
			}
		}
		obj.Members = append(obj.Members, canon.Member{Name: name, Value: v})
	}
	return obj
}

func checkAsqavHash(c *check) {
	doc := c.doc
	f := &c.res.Fields
	f.ActionID = str(doc, "action_id")
	f.AgentID = str(doc, "agent_id")
	f.OrgID = str(doc, "org_id")
	f.IssuedAt = str(doc, "server_timestamp")
	f.Decision = str(doc, "policy_decision")
	f.ToolName = str(doc, "tool_name")
	f.ToolFingerprint = str(doc, "tool_fingerprint")
	for _, name := range []string{"issuer_id", "previousReceiptHash"} {
		if doc.Get(name) != nil {
			c.fail(AxisStructure, ReasonBadField, name+" has no place in a hash-mode record (it is not signed)")
		}
	}
	if org := doc.Get("org_id"); org == nil || org.Kind == canon.Null {
		c.fail(AxisStructure, ReasonMissingField, "org_id is missing")
		return
	}
	input := hashModeSigningInput(doc)
	msg, err := asqavDialect(f.IssuedAt).Append(nil, &input)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "signing input cannot be canonicalized: "+err.Error())
		return
	}
	alg := str(doc, "algorithm")
	kid, okKid := c.requireStr(doc, "", "key_id")
	sigText, okSig := c.requireStr(doc, "", hashModeSignatureMember(doc))
	f.KeyID, f.Signature = kid, sigText
	if okKid && okSig {
		c.asqavSignature(kid, f.AgentID, "", f.OrgID, doc.Get("org_id"), alg, msg, sigText)
	}
	c.notRun(AxisPayloadDigest, "hash mode carries no context")
	c.notRun(AxisActionRef, "hash mode carries no context")
	c.asqavAnchors()
}

// issuerBind checks that the issuer the receipt claims is the one the key
// directory publishes for the key, as the reference verifiers do: equal
// text binds; otherwise only canonical UUIDs are compared (case-
// insensitively), first the key's issuer_id, then, when that is not a
// UUID, its org_id. A key that publishes neither in a comparable form
// cannot bind (SKIPPED); a claimed issuer that is not a string fails.
func (c *check) issuerBind(key *keys.Key, claimed *canon.Value) {
	switch {
	case claimed == nil || claimed.Kind == canon.Null:
		c.skip(AxisIssuerBind, ReasonUncheckable, "receipt names no issuer")
		return
	case claimed.Kind != canon.String:
		c.fail(AxisIssuerBind, ReasonBadField, "the receipt's issuer is a "+claimed.Kind.String()+", not a string")
		return
	}
	iss := claimed.Text
	var published string
	switch {
	case key.IssuerID != "" && key.IssuerID == iss:
		c.pass(AxisIssuerBind, key.IssuerID)
		return
	case isCanonicalUUID(key.IssuerID):
		published = key.IssuerID
	case isCanonicalUUID(key.OrgID):
		published = key.OrgID
	default:
		c.skip(AxisIssuerBind, ReasonUncheckable, "the key publishes no issuer_id or org_id this receipt's issuer can be compared with")
		return
	}
	if isCanonicalUUID(iss) && strings.EqualFold(iss, published) {
		c.pass(AxisIssuerBind, published)
		return
	}
	c.fail(AxisIssuerBind, ReasonIssuerMismatch, "receipt issuer "+iss+" is not the key's issuer "+published)
}

// isCanonicalUUID reports whether s is 8-4-4-4-12 hex digits, either case.
func isCanonicalUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// asqavIssuedValue is the payload's issue time member: issued_at, or
// timestamp when issued_at is absent or null.
func asqavIssuedValue(p *canon.Value) *canon.Value {
	iv := p.Get("issued_at")
	if iv == nil || iv.Kind == canon.Null {
		iv = p.Get("timestamp")
	}
	return iv
}

// asqavIssuedText is the issue time that picks the canonical dialect, the
// same for the signature and the chain hash: "" (the current dialect) when
// it is not a string.
func asqavIssuedText(p *canon.Value) string {
	if iv := asqavIssuedValue(p); iv != nil && iv.Kind == canon.String {
		return iv.Text
	}
	return ""
}
