package verify

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strconv"
	"time"

	"github.com/fxamacker/cbor/v2"
	"github.com/veraison/go-cose"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
	"github.com/receiptverify/verify/verify/tlog"
)

// A SCITT transparent statement (RFC 9943, RFC 9942) is a COSE_Sign1
// signed statement whose unprotected header 394 holds receipts: each a
// COSE_Sign1 by a transparency service, protected header 395 (verifiable
// data structure) 1, RFC9162_SHA256, unprotected header 396 a map whose
// key -1 lists inclusion proofs, each the CBOR [tree_size, leaf_index,
// [hash...]], and a detached payload: the Merkle root the proof leads to.
//
// It arrives as a JSON line, {"transparent_statement": base64url of the
// tagged COSE_Sign1 bytes, "detached_payload": base64url of the payload
// when the statement's payload is detached (nil)}; a .cose file is carried
// by putting its bytes there. The statement's signature is checked with
// the key its protected kid (4) names in the key files, over the
// Sig_structure built by github.com/veraison/go-cose from the protected
// header bytes as received. Each receipt's leaf is the RFC 9162 leaf hash
// of the statement as registered: its bytes with the unprotected header
// replaced by an empty map (tag, protected header, payload and signature
// as received), as @transmute/cose's receipt verifier computes it; the
// root is recomputed from the leaf and each inclusion path, and the
// receipt's signature is checked over that root with the service's key
// from the key files. Receipts are outside the issuer's signature and
// decide the anchors axis alone: FAIL when one does not verify, PASS when
// every one does, not run when there is none, and SKIPPED (INCOMPLETE)
// when one cannot be checked: its service's key is in no key file
// (unknown_key), or its data structure or algorithm is not one this tool
// checks.
//
// A payload that is a NOA receipt (noa.receipt/0.1, the agent-receipt
// profile of draft-noa-scitt-ai-agent-receipt: RFC 8785 JSON, its
// receiptToCose wrapping) chains: its chain.hash must be "sha256:" and the
// SHA-256 of the RFC 8785 form of the receipt less chain.hash and
// sig.value (the payload_digest axis), and chain.prevHash names the
// predecessor's, null on the first receipt; a chain is one scope.tenant
// and scope.chain; prevHash is null exactly on chain.seq 0. That seq
// follows the predecessor's is not checked (noa's verifyChain does): the
// link is. The receipt's own sig is not checked: the COSE signature
// covers the whole payload.
var scittFormat = format{name: "scitt-statement", detect: isSCITT, check: checkSCITT, signs: []string{"transparent_statement", "detached_payload"}, chain: &chainRule{
	hash:  scittChainHash,
	link:  linkRule{path: []string{"chain", "prevHash"}, absent: linkMissing, null: linkGenesis, prefix: "sha256:"},
	scope: scittChainScope,
}}

// noaSpec is the spec member of a NOA receipt.
const noaSpec = "noa.receipt/0.1"

// noaPayload returns the statement's payload, attached or detached, as a
// NOA receipt; nil when it is none.
func noaPayload(doc *canon.Value) *canon.Value {
	raw, err := scittDecode(str(doc, "transparent_statement"))
	if err != nil {
		return nil
	}
	var m cose.Sign1Message
	if m.UnmarshalCBOR(raw) != nil {
		return nil
	}
	payload := m.Payload
	if payload == nil {
		if payload, err = scittDecode(str(doc, "detached_payload")); err != nil {
			return nil
		}
	}
	return noaReceipt(payload)
}

func noaReceipt(payload []byte) *canon.Value {
	if len(payload) == 0 || payload[0] != '{' {
		return nil
	}
	r, err := canon.Parse(payload, receiptParse)
	if err != nil || r.Kind != canon.Object || str(&r, "spec") != noaSpec {
		return nil
	}
	return &r
}

// noaChainHash is the hex SHA-256 of the RFC 8785 form of r without
// chain.hash and sig.value.
func noaChainHash(r *canon.Value) (string, error) {
	out := canon.Value{Kind: canon.Object}
	for _, m := range r.Members {
		switch {
		case m.Name == "chain" && m.Value.Kind == canon.Object:
			m.Value = withoutMembers(&m.Value, "hash")
		case m.Name == "sig" && m.Value.Kind == canon.Object:
			m.Value = withoutMembers(&m.Value, "value")
		case m.Name == "chain" || m.Name == "sig":
			return "", errors.New(m.Name + " must be an object")
		}
		out.Members = append(out.Members, m)
	}
	b, err := canon.RFC8785().Append(nil, &out)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

func scittChainHash(doc *canon.Value) (string, error) {
	r := noaPayload(doc)
	if r == nil {
		return "", errors.New("the payload is no NOA receipt")
	}
	return noaChainHash(r)
}

func scittChainScope(name string, doc *canon.Value) string {
	r := noaPayload(doc)
	if r == nil {
		return scopeKey(name)
	}
	sc := r.Get("scope")
	return scopeKey(name, str(sc, "tenant"), str(sc, "chain"))
}

// COSE labels of RFC 9052, RFC 9942 and RFC 9943.
const (
	coseKID         = 4
	coseCWTClaims   = 15
	coseReceipts    = 394
	coseVDS         = 395
	coseVDP         = 396
	coseVDSRFC9162  = 1
	coseInclusion   = -1
	cwtIssuer       = 1
	cwtSubject      = 2
	cwtIssuedAt     = 6
	coseSign1Tag    = 18
	scittHashLength = tlog.HashSize
)

func isSCITT(doc *canon.Value) bool {
	v := doc.Get("transparent_statement")
	return v != nil && v.Kind == canon.String
}

// coseAlgs maps COSE algorithm identifiers to this tool's algorithms.
var coseAlgs = map[cose.Algorithm]sigalg.Alg{
	cose.AlgorithmEdDSA: sigalg.Ed25519,
	-19:                 sigalg.Ed25519, // RFC 9864 fully-specified Ed25519 (draft-noa's)
	-9:                  sigalg.ES256,   // RFC 9864 ESP256
	cose.AlgorithmES256: sigalg.ES256,
	cose.AlgorithmES384: sigalg.ES384,
	cose.AlgorithmES512: sigalg.ES512,
	cose.AlgorithmPS256: sigalg.PS256,
	-48:                 sigalg.MLDSA44, // draft-ietf-cose-dilithium
	-49:                 sigalg.MLDSA65,
	-50:                 sigalg.MLDSA87,
}

// capture is a cose.Verifier that keeps the ToBeSigned bytes go-cose
// builds, so that the signature is then checked with this tool's keys.
type capture struct {
	alg cose.Algorithm
	tbs []byte
}

func (v *capture) Algorithm() cose.Algorithm { return v.alg }
func (v *capture) Verify(content, _ []byte) error {
	v.tbs = append([]byte(nil), content...)
	return nil
}

// toBeSigned returns the Sig_structure bytes of m, its payload set to
// payload when m's is detached, and the algorithm its protected header
// names.
func toBeSigned(m *cose.Sign1Message, payload []byte) ([]byte, cose.Algorithm, error) {
	alg, err := m.Headers.Protected.Algorithm()
	if err != nil {
		return nil, 0, errors.New("the protected header names no usable alg: " + err.Error())
	}
	msg := *m
	if payload != nil {
		msg.Payload = payload
	}
	v := &capture{alg: alg}
	if err := msg.Verify(nil, v); err != nil {
		return nil, alg, err
	}
	return v.tbs, alg, nil
}

// kidOf returns the protected header's kid, or else the unprotected one's.
func kidOf(h cose.Headers) string {
	for _, m := range []map[any]any{h.Protected, h.Unprotected} {
		if b, ok := m[int64(coseKID)].([]byte); ok {
			return string(b)
		}
	}
	return ""
}

// scittDecode reads a base64url member, padded or not.
func scittDecode(s string) ([]byte, error) {
	if b, err := base64.RawURLEncoding.DecodeString(s); err == nil {
		return b, nil
	}
	return base64.URLEncoding.DecodeString(s)
}

// registered returns the bytes a transparency service registered for the
// tagged COSE_Sign1 raw: tag 18 and the array with its unprotected header
// emptied, the other three items as received.
func registered(raw []byte) ([]byte, error) {
	var tag cbor.RawTag
	if err := cbor.Unmarshal(raw, &tag); err != nil || tag.Number != coseSign1Tag {
		return nil, errors.New("not a tagged COSE_Sign1 (CBOR tag 18)")
	}
	var items []cbor.RawMessage
	if err := cbor.Unmarshal(tag.Content, &items); err != nil || len(items) != 4 {
		return nil, errors.New("a COSE_Sign1 is an array of four items")
	}
	out := []byte{0xd2, 0x84}
	out = append(out, items[0]...)
	out = append(out, 0xa0)
	out = append(out, items[2]...)
	return append(out, items[3]...), nil
}

func checkSCITT(c *check) {
	doc := c.doc
	raw, err := scittDecode(str(doc, "transparent_statement"))
	if err != nil {
		c.fail(AxisStructure, ReasonBadEncoding, "transparent_statement is not base64url: "+err.Error())
		return
	}
	var detached []byte
	if v := doc.Get("detached_payload"); v != nil {
		if v.Kind != canon.String {
			c.fail(AxisStructure, ReasonBadField, "detached_payload must be a base64url string")
			return
		}
		if detached, err = scittDecode(v.Text); err != nil {
			c.fail(AxisStructure, ReasonBadEncoding, "detached_payload is not base64url: "+err.Error())
			return
		}
	}
	leafEntry, err := registered(raw)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "transparent_statement: "+err.Error())
		return
	}
	var m cose.Sign1Message
	if err := m.UnmarshalCBOR(raw); err != nil {
		c.fail(AxisStructure, ReasonMalformed, "transparent_statement: "+err.Error())
		return
	}
	switch {
	case m.Payload == nil && detached == nil:
		c.fail(AxisStructure, ReasonMissingField, "the statement's payload is detached and the line has no detached_payload")
		return
	case m.Payload != nil && detached != nil:
		c.fail(AxisStructure, ReasonBadField, "detached_payload given for a statement whose payload is attached")
		return
	}
	c.scittFields(&m)
	c.res.Fields.Signature = hex.EncodeToString(m.Signature)
	payload := m.Payload
	if payload == nil {
		payload = detached
	}
	noa := noaReceipt(payload)
	if noa != nil {
		c.noaChain(noa)
	} else {
		c.notRun(AxisPayloadDigest, "a COSE_Sign1 carries no payload digest")
	}
	c.scittSignature(&m, detached)
	if noa != nil {
		c.noteSignature("a NOA receipt; its own sig is not checked: the COSE signature covers it")
	}
	c.scittReceipts(&m, leafEntry)
}

// noaChain checks a NOA receipt payload's chain.hash and reads its link.
func (c *check) noaChain(r *canon.Value) {
	f := &c.res.Fields
	f.ActionID = str(r, "id")
	f.IssuedAt = str(r, "ts")
	f.AgentID = str(r.Get("agent"), "id")
	f.ToolName = str(r.Get("action"), "canonical")
	f.Decision = str(r.Get("governance"), "verdict")
	got, err := noaChainHash(r)
	if err != nil {
		c.fail(AxisStructure, ReasonBadField, "payload: "+err.Error())
		return
	}
	switch want := str(r.Get("chain"), "hash"); want {
	case "sha256:" + got:
		c.pass(AxisPayloadDigest, "payload chain.hash")
	default:
		c.fail(AxisPayloadDigest, ReasonDigestMismatch, "the payload hashes to sha256:"+got+", its chain.hash says "+quoteShort(want))
	}
	ch := r.Get("chain")
	seq := ch.Get("seq")
	if seq == nil || seq.Kind != canon.Number {
		c.fail(AxisStructure, ReasonBadField, "payload chain.seq must be a number")
		return
	}
	if p := ch.Get("prevHash"); (p != nil && p.Kind == canon.Null) != (seq.Text == "0") {
		c.fail(AxisChain, ReasonChainMismatch, "chain.prevHash null goes with chain.seq 0 and only with it; chain.seq is "+seq.Text)
	}
	c.linkRoot = r
	c.readLink()
	c.res.Fingerprints.ChainHash = got
}

// scittFields fills the fields a signed statement's CWT claims (protected
// header 15) give: issuer, subject and issue time.
func (c *check) scittFields(m *cose.Sign1Message) {
	claims, ok := m.Headers.Protected[int64(coseCWTClaims)].(map[any]any)
	if !ok {
		return
	}
	f := &c.res.Fields
	if s, ok := claims[int64(cwtIssuer)].(string); ok {
		f.IssuerID = s
	}
	if s, ok := claims[int64(cwtSubject)].(string); ok {
		f.AgentID = s
	}
	switch n := claims[int64(cwtIssuedAt)].(type) {
	case int64:
		f.IssuedAt = time.Unix(n, 0).UTC().Format(time.RFC3339)
	case uint64:
		if n <= 253402300799 {
			f.IssuedAt = time.Unix(int64(n), 0).UTC().Format(time.RFC3339)
		}
	}
}

func (c *check) scittSignature(m *cose.Sign1Message, detached []byte) {
	kid := kidOf(m.Headers)
	if kid == "" {
		c.skip(AxisIssuerKey, ReasonUnknownKey, "the statement's header names no kid to find the key by")
		c.skip(AxisKeyStatus, ReasonUncheckable, "no key")
		c.skip(AxisSignature, ReasonUncheckable, "no key")
		return
	}
	c.res.Fields.KeyID = kid
	tbs, alg, err := toBeSigned(m, detached)
	if err != nil {
		c.fail(AxisSignature, ReasonMalformed, "the statement's Sig_structure: "+err.Error())
		return
	}
	key := c.keyByID(kid)
	if key == nil {
		return
	}
	c.keyStatus(key)
	want, ok := coseAlgs[alg]
	if !ok {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "COSE algorithm "+strconv.FormatInt(int64(alg), 10))
		return
	}
	c.verifySignature(key, string(want), tbs, m.Signature)
	if detached != nil {
		c.noteSignature("detached payload")
	}
}

// scittReceipts judges the receipts of unprotected header 394 on the
// anchors axis.
func (c *check) scittReceipts(m *cose.Sign1Message, leafEntry []byte) {
	v, ok := m.Headers.Unprotected[int64(coseReceipts)]
	if !ok {
		c.notRun(AxisAnchors, "no receipt (unprotected header 394): a signed statement, not a transparent one")
		return
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 || len(list) > limits.MaxSCITTReceipts {
		c.fail(AxisAnchors, ReasonBadField, "header 394 must list 1 to "+itoa(limits.MaxSCITTReceipts)+" receipts")
		return
	}
	leaf := tlog.LeafHash(leafEntry)
	var notes []string
	var unverified Reason
	for i, r := range list {
		where := "receipt " + itoa(i) + ": "
		b, ok := r.([]byte)
		if !ok {
			c.fail(AxisAnchors, ReasonBadField, where+"must be a byte string holding a COSE_Sign1")
			return
		}
		outcome, why, text := c.scittReceipt(b, leaf)
		switch outcome {
		case tlog.Refuted:
			c.fail(AxisAnchors, ReasonBadInclusionProof, where+text)
			return
		case tlog.Unverified:
			unverified = why
		}
		notes = append(notes, where+text)
	}
	note := notes[0]
	for _, n := range notes[1:] {
		note += "; " + n
	}
	if unverified != "" {
		c.skip(AxisAnchors, unverified, note)
		return
	}
	c.pass(AxisAnchors, note)
}

// scittReceipt judges one receipt for the statement whose leaf hash is
// leaf; why is the reason a receipt that could not be checked gives.
func (c *check) scittReceipt(raw, leaf []byte) (outcome tlog.Outcome, why Reason, text string) {
	defer func() {
		if outcome == tlog.Refuted {
			why = ReasonBadInclusionProof
		}
	}()
	var r cose.Sign1Message
	if err := r.UnmarshalCBOR(raw); err != nil {
		return tlog.Refuted, "", "not a tagged COSE_Sign1: " + err.Error()
	}
	vds, ok := r.Headers.Protected[int64(coseVDS)]
	if !ok {
		return tlog.Refuted, "", "no verifiable data structure (protected header 395)"
	}
	if n, ok := vds.(int64); !ok || n != coseVDSRFC9162 {
		return tlog.Unverified, ReasonUnsupported, "verifiable data structure " + jsonish(vds) + " is not RFC9162_SHA256 (1), which this tool checks: not checked"
	}
	if r.Payload != nil {
		return tlog.Refuted, "", "the receipt's payload must be detached (RFC 9942): its root is recomputed, never read"
	}
	proofs, err := inclusionProofs(r.Headers.Unprotected[int64(coseVDP)])
	if err != nil {
		return tlog.Refuted, "", err.Error()
	}
	kid := kidOf(r.Headers)
	var key *keys.Key
	if kid != "" {
		key, _ = c.v.keys.ByID(kid)
	}
	for i, p := range proofs {
		root, err := tlog.RootFromInclusion(leaf, p.index, p.size, p.path)
		if err != nil {
			return tlog.Refuted, "", "inclusion proof " + itoa(i) + ": " + err.Error()
		}
		tbs, alg, err := toBeSigned(&r, root)
		if err != nil {
			return tlog.Refuted, "", "Sig_structure: " + err.Error()
		}
		where := "index " + strconv.FormatUint(p.index, 10) + " of " + strconv.FormatUint(p.size, 10)
		if key == nil {
			return tlog.Unverified, ReasonUnknownKey, "the proof at " + where + " leads to root " + hex.EncodeToString(root) + ", but the transparency service's key " + strconv.Quote(kid) + " is in no key file: inclusion not established"
		}
		want, ok := coseAlgs[alg]
		switch {
		case !ok:
			return tlog.Unverified, ReasonUnsupportedAlg, "COSE algorithm " + strconv.FormatInt(int64(alg), 10) + " is not one this tool checks"
		case want != key.Alg:
			return tlog.Refuted, "", "the receipt claims " + string(want) + ", key " + key.KID + " is " + string(key.Alg)
		}
		if err := key.Verify(tbs, r.Signature); err != nil {
			return tlog.Refuted, "", "the receipt's signature by " + key.KID + " does not verify over root " + hex.EncodeToString(root) + ", recomputed from the statement's leaf and the inclusion path at " + where + ": the statement, the path or the receipt was altered"
		}
		text = "included at " + where + ", root signed by " + key.KID
	}
	return tlog.Included, "", text
}

// inclusionProof is one RFC 9162 inclusion proof of a receipt.
type inclusionProof struct {
	size, index uint64
	path        [][]byte
}

// inclusionProofs reads header 396's inclusion proofs (key -1): a list of
// byte strings, each the CBOR [tree_size, leaf_index, [hash...]].
func inclusionProofs(vdp any) ([]inclusionProof, error) {
	m, ok := vdp.(map[any]any)
	if !ok {
		return nil, errors.New("no verifiable data proofs (unprotected header 396)")
	}
	list, ok := m[int64(coseInclusion)].([]any)
	if !ok || len(list) == 0 || len(list) > limits.MaxSCITTProofs {
		return nil, errors.New("header 396 must list 1 to " + itoa(limits.MaxSCITTProofs) + " inclusion proofs under -1")
	}
	out := make([]inclusionProof, 0, len(list))
	for i, item := range list {
		b, ok := item.([]byte)
		bad := errors.New("inclusion proof " + itoa(i) + " is not [tree_size, leaf_index, [hash...]] in CBOR")
		if !ok {
			return nil, bad
		}
		var p struct {
			_     struct{} `cbor:",toarray"`
			Size  uint64
			Index uint64
			Path  [][]byte
		}
		if err := cbor.Unmarshal(b, &p); err != nil {
			return nil, bad
		}
		if len(p.Path) > tlog.MaxPath {
			return nil, errors.New("inclusion proof " + itoa(i) + " has more than " + itoa(tlog.MaxPath) + " hashes")
		}
		for j, h := range p.Path {
			if len(h) != scittHashLength {
				return nil, errors.New("inclusion proof " + itoa(i) + " hash " + itoa(j) + " is not 32 bytes")
			}
		}
		out = append(out, inclusionProof{size: p.Size, index: p.Index, path: p.Path})
	}
	return out, nil
}

// jsonish writes a decoded CBOR value for a note.
func jsonish(v any) string {
	switch x := v.(type) {
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case string:
		return strconv.Quote(x)
	case []byte:
		return "h'" + hex.EncodeToString(x) + "'"
	}
	return "(a value of another type)"
}
