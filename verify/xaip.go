package verify

import (
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An XAIP execution receipt (xkumakichi/xaip-protocol, sdk/src/identity.ts
// and middleware.ts) is a flat object signed by the executing agent:
// Ed25519, hex, over the JCS bytes of agentDid, callerDid, failureType,
// latencyMs, resultHash, success, taskHash, timestamp, toolName and, when
// present, formatVersion (an absent callerDid, failureType or resultHash
// signed as "", any other absent member as null). callerSignature, when
// present, is the caller's co-signature over the same bytes. toolMetadata
// is not signed; receipts without formatVersion, from SDK releases before
// it, signed it when present, so for those the form with it is tried when
// the form without fails, and the note says so.
//
// Each key is found in the key files by its DID (agentDid, callerDid). The
// SDK's DIDs are did:key:<64 hex>, the raw key itself: one the key files
// do not list leaves the receipt INCOMPLETE (unknown_key), its signature
// still checked under the key the DID names, so a tampered receipt fails
// whoever signed it; the producer's aggregator trusts the key pushed
// beside the receipt. A co-signature that does not verify fails the
// receipt (parent_signature), where the aggregator records the receipt as
// not co-signed.
var xaipFormat = format{name: "xaip", detect: isXAIP, check: checkXAIP, signs: xaipSigned}

// xaipSigned: the payload's members, then the two signatures.
var xaipSigned = []string{"agentDid", "callerDid", "failureType", "latencyMs", "resultHash", "success",
	"taskHash", "timestamp", "toolName", "formatVersion", "signature", "callerSignature"}

func isXAIP(doc *canon.Value) bool {
	a, s := doc.Get("agentDid"), doc.Get("signature")
	return a != nil && a.Kind == canon.String && s != nil && s.Kind == canon.String &&
		doc.Get("taskHash") != nil && doc.Get("toolName") != nil
}

// xaipPayload is receiptPayload's object; withMeta adds toolMetadata, as
// releases before formatVersion signed it.
func xaipPayload(doc *canon.Value, withMeta bool) canon.Value {
	var p canon.Value
	p.Kind = canon.Object
	names := xaipSigned[:9]
	if withMeta {
		names = append(append([]string(nil), names...), "toolMetadata")
	}
	for _, name := range names {
		v := doc.Get(name)
		switch {
		case v != nil && !(v.Kind == canon.Null && (name == "callerDid" || name == "failureType" || name == "resultHash")):
		case name == "callerDid" || name == "failureType" || name == "resultHash":
			v = &canon.Value{Kind: canon.String}
		default:
			v = &canon.Value{Kind: canon.Null}
		}
		p.Members = append(p.Members, canon.Member{Name: name, Value: *v})
	}
	if v := doc.Get("formatVersion"); v != nil {
		p.Members = append(p.Members, canon.Member{Name: "formatVersion", Value: *v})
	}
	return p
}

// xaipKey finds the key of did: the key files' entry for it, else the key
// a did:key:<hex> names (self-asserted, listed reports false).
func (c *check) xaipKey(did string) (key *keys.Key, listed bool, err error) {
	named := xaipNamedKey(did)
	k, err := c.v.keys.ByID(did)
	if err == nil {
		if named != nil && k.Public != nil && !k.Public.Equal(named.Public) {
			return k, true, errXAIPOtherKey
		}
		return k, true, nil
	}
	if named != nil {
		return named, false, err
	}
	return nil, false, err
}

type xaipError string

func (e xaipError) Error() string { return string(e) }

const errXAIPOtherKey = xaipError("the key files list another key under this did:key")

func checkXAIP(c *check) {
	doc := c.doc
	f := &c.res.Fields
	f.AgentID = str(doc, "agentDid")
	f.ToolName = str(doc, "toolName")
	f.IssuedAt = str(doc, "timestamp")
	sigText, ok := c.requireStr(doc, "", "signature")
	f.Signature = sigText
	if !ok {
		return
	}
	if fv := doc.Get("formatVersion"); fv != nil && (fv.Kind != canon.String || fv.Text != "1") {
		c.skip(AxisStructure, ReasonUnsupported, "formatVersion "+jsonText(fv)+" is not one this tool reads (1)")
		return
	}
	c.notRun(AxisAnchors, "anchors in toolMetadata are not signed and not checked")
	payload := xaipPayload(doc, false)
	msg, err := canon.RFC8785().Append(nil, &payload)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "the signed members cannot be canonicalized: "+err.Error())
		return
	}
	key, listed, err := c.xaipKey(f.AgentID)
	switch {
	case key == nil:
		c.resolveFailed(err)
		return
	case err == errXAIPOtherKey:
		c.pass(AxisIssuerKey, key.Label())
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, "agentDid names another key than the key files list for it")
		// The signature is checked under the key the DID names: it says
		// whether the receipt is what that key's holder signed.
		key = xaipNamedKey(f.AgentID)
	case !listed:
		c.resolveFailed(err)
		c.notRun(AxisIssuerBind, "agentDid names its own key, which no key file lists")
	default:
		c.pass(AxisIssuerKey, key.Label())
		c.pass(AxisIssuerBind, "agentDid is the key files' entry")
		f.KeyID = key.KID
		c.keyStatus(key)
	}
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	if doc.Get("formatVersion") == nil && key.Public != nil && key.Verify(msg, sig) != nil {
		if old, note, covered := c.xaipLegacy(key, sig); old != nil {
			msg = old
			c.alsoSigned = covered
			defer c.noteSignature(note)
		}
	}
	c.verifySignature(key, "", msg, sig)
	c.xaipCoSignature(msg)
}

// xaipLegacy tries the signed forms of receipts without formatVersion
// whose signature the current form does not verify: the SDK's before
// formatVersion (toolMetadata signed when present), and the receipt's
// members as written, less its signatures and the public keys beside them
// (the repository's settlement demo). It returns the bytes that verify,
// the note to give and the members they cover beyond the current form.
func (c *check) xaipLegacy(key *keys.Key, sig []byte) ([]byte, string, []string) {
	doc := c.doc
	if doc.Get("toolMetadata") != nil {
		p := xaipPayload(doc, true)
		if b, err := canon.RFC8785().Append(nil, &p); err == nil && key.Verify(b, sig) == nil {
			return b, "signed with toolMetadata, as SDK releases before formatVersion did", []string{"toolMetadata"}
		}
	}
	asWritten := withoutMembers(doc, "signature", "callerSignature", "agentPublicKey", "callerPublicKey")
	if b, err := canon.RFC8785().Append(nil, &asWritten); err == nil && key.Verify(b, sig) == nil {
		var names []string
		for _, m := range asWritten.Members {
			names = append(names, m.Name)
		}
		return b, "signed over the receipt's members as written (the settlement demo's form, before formatVersion)", names
	}
	return nil, "", nil
}

// xaipNamedKey is the key a did:key:<64 hex> names, nil for another DID.
func xaipNamedKey(did string) *keys.Key {
	hexKey, ok := strings.CutPrefix(did, "did:key:")
	if !ok {
		return nil
	}
	raw, err := sigalg.DecodeHexN(hexKey, 32)
	if err != nil {
		return nil
	}
	pk, err := sigalg.NewPublicKey(sigalg.Ed25519, raw)
	if err != nil {
		return nil
	}
	return &keys.Key{KID: did, Alg: sigalg.Ed25519, Public: pk}
}

// xaipCoSignature checks the caller's co-signature, when there is one,
// over the bytes the agent signed.
func (c *check) xaipCoSignature(msg []byte) {
	sv := c.doc.Get("callerSignature")
	if sv == nil || sv.Kind == canon.Null || c.res.Axes.Of(AxisSignature).Status == StatusFail {
		return
	}
	if sv.Kind != canon.String {
		c.fail(AxisSignature, ReasonParentSignature, "callerSignature must be a string")
		return
	}
	did := str(c.doc, "callerDid")
	key, listed, err := c.xaipKey(did)
	switch {
	case key == nil || key.Public == nil:
		c.skip(AxisSignature, ReasonUncheckable, "the caller's key "+quoteShort(did)+" is in no key file and no did:key")
		return
	case err == errXAIPOtherKey:
		c.fail(AxisSignature, ReasonParentSignature, "callerDid names another key than the key files list for it")
		return
	}
	sig, err := sigalg.DecodeHex(sv.Text)
	if err == nil {
		err = key.Verify(msg, sig)
	}
	if err != nil {
		c.fail(AxisSignature, ReasonParentSignature, "the caller's co-signature by "+quoteShort(did)+" does not verify: "+err.Error())
		return
	}
	if !listed {
		c.noteSignature("co-signed by callerDid " + did + ", under the key that did:key names (in no key file)")
		return
	}
	c.noteSignature("co-signed by callerDid " + did)
}
