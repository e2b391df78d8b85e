package verify

import (
	"bytes"
	"encoding/base64"
	"strconv"
	"time"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
)

// JWS receipts (RFC 7515) come in three serializations: the compact one,
// a line of three base64url segments joined by dots, which is not JSON
// (readDocument reads it as the flattened JSON serialization it is
// equivalent to, RFC 7515 section 7.2.2); the flattened JSON one,
// {protected, header, payload, signature}; and the general one, {payload,
// signatures: [{protected, header, signature}]}. Each signature is checked
// over its signing input as carried, the protected header's segment, ".",
// the payload's segment: the bytes on the wire, never re-encoded. Its key
// is found by the header's kid, else by the payload's iss claim; the alg
// the header names must be the key's. Every signature of a general JWS
// must verify (the worst outcome decides), where a JOSE library accepts
// the one it is handed a key for. The JOSE parsers (go-jose among them)
// read headers with encoding/json, which lets a duplicate member through
// where this tool refuses it, so the envelope is read here with the
// receipt parser. Headers with crit, or b64 false (RFC 7797), are not
// checked (unsupported).
//
// jws is any JWS whose payload is not a TrustProof claims set (those are
// trustproof.go's).
var jwsFormat = format{name: "jws", detect: isGenericJWS, check: checkJWS, signs: jwsSigned}

// jwsSigned: an unprotected header is the one member of a JWS no
// signature covers.
var jwsSigned = []string{"protected", "payload", "signature", "signatures"}

// readDocument parses a receipt's bytes: JSON, or else a JWS in compact
// serialization, read as its flattened JSON serialization. parse is
// canon.Parse or the borrowing parseReceipt. On failure the JSON parser's
// error is returned.
func readDocument(raw []byte, parse func([]byte) (canon.Value, error)) (canon.Value, error) {
	doc, err := parse(raw)
	if err == nil {
		return doc, nil
	}
	if d, ok := compactJWS(raw); ok {
		return d, nil
	}
	return doc, err
}

// compactJWS reads raw, less surrounding white space, as a compact JWS:
// three segments of base64url text, the payload and signature possibly
// empty, joined by two dots.
func compactJWS(raw []byte) (canon.Value, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) == 0 || len(s) > limits.MaxLineBytes {
		return canon.Value{}, false
	}
	dots := 0
	for _, b := range s {
		switch {
		case b == '.':
			dots++
		case b >= 'A' && b <= 'Z', b >= 'a' && b <= 'z', b >= '0' && b <= '9', b == '-', b == '_':
		default:
			return canon.Value{}, false
		}
	}
	if dots != 2 {
		return canon.Value{}, false
	}
	h, rest, _ := bytes.Cut(s, []byte{'.'})
	p, sig, _ := bytes.Cut(rest, []byte{'.'})
	if len(h) == 0 {
		return canon.Value{}, false
	}
	return canon.ObjectValue(
		canon.Member{Name: "protected", Value: canon.StringValue(string(h))},
		canon.Member{Name: "payload", Value: canon.StringValue(string(p))},
		canon.Member{Name: "signature", Value: canon.StringValue(string(sig))},
	), true
}

// isJWS reports whether doc is a JWS in a JSON serialization: a string
// payload (DSSE's has a payloadType beside it) with either a protected
// header and a signature, or a list of signatures.
func isJWS(doc *canon.Value) bool {
	p := doc.Get("payload")
	if p == nil || p.Kind != canon.String || doc.Get("payloadType") != nil {
		return false
	}
	if sigs := doc.Get("signatures"); sigs != nil {
		return sigs.Kind == canon.Array && doc.Get("signature") == nil
	}
	prot, sig := doc.Get("protected"), doc.Get("signature")
	return prot != nil && prot.Kind == canon.String && sig != nil && sig.Kind == canon.String
}

func isGenericJWS(doc *canon.Value) bool { return isJWS(doc) && !isTrustProof(doc) }

// jwsB64 is base64url without padding, as JWS writes every segment;
// Strict refuses stray bits in the last character, so one JWS has one
// spelling.
var jwsB64 = base64.RawURLEncoding.Strict()

// jwsClaims decodes the payload segment and parses it as a JSON object;
// nil when it is none.
func jwsClaims(doc *canon.Value) *canon.Value {
	body, err := jwsB64.DecodeString(str(doc, "payload"))
	if err != nil || len(body) == 0 || body[0] != '{' {
		return nil
	}
	v, err := canon.Parse(body, receiptParse)
	if err != nil || v.Kind != canon.Object {
		return nil
	}
	return &v
}

// jwsPart is one signature of a JWS: its protected header segment, its
// unprotected header (nil when none) and its signature segment.
type jwsPart struct {
	protected, signature string
	header               *canon.Value
}

// jwsParts lists the signatures of a JWS in either JSON serialization.
func (c *check) jwsParts() ([]jwsPart, bool) {
	sigs := c.doc.Get("signatures")
	if sigs == nil {
		return []jwsPart{{protected: str(c.doc, "protected"), signature: str(c.doc, "signature"), header: c.doc.Get("header")}}, true
	}
	if len(sigs.Items) == 0 || len(sigs.Items) > limits.MaxJWSSignatures {
		c.fail(AxisStructure, ReasonBadField, "signatures must hold 1 to "+itoa(limits.MaxJWSSignatures)+" entries, not "+itoa(len(sigs.Items)))
		return nil, false
	}
	parts := make([]jwsPart, 0, len(sigs.Items))
	for i := range sigs.Items {
		s := &sigs.Items[i]
		where := "signatures[" + itoa(i) + "]."
		if s.Kind != canon.Object {
			c.fail(AxisStructure, ReasonBadField, where[:len(where)-1]+" must be an object")
			return nil, false
		}
		prot, ok1 := c.requireStr(s, where, "protected")
		sig, ok2 := c.requireStr(s, where, "signature")
		if !ok1 || !ok2 {
			return nil, false
		}
		parts = append(parts, jwsPart{protected: prot, signature: sig, header: s.Get("header")})
	}
	return parts, true
}

// jwsVerify checks every signature of the JWS in c.doc over its payload
// segment, with claims the decoded payload (nil when it is not a JSON
// object), and records the issuer_key, key_status and signature axes:
// each the worst of the signatures' outcomes.
func (c *check) jwsVerify(claims *canon.Value) {
	parts, ok := c.jwsParts()
	if !ok {
		return
	}
	payload := str(c.doc, "payload")
	compact := len(bytes.TrimSpace(c.raw)) > 0 && bytes.TrimSpace(c.raw)[0] != '{'
	type outcome struct{ key, status, sig Axis }
	var outs []outcome
	unprotected := false
	for i, p := range parts {
		if p.header != nil {
			unprotected = true
		}
		c.jwsVerifyOne(p, payload, claims)
		o := outcome{c.res.Axes.Of(AxisIssuerKey), c.res.Axes.Of(AxisKeyStatus), c.res.Axes.Of(AxisSignature)}
		if len(parts) > 1 {
			o.sig.Note = "signature " + itoa(i) + ": " + o.sig.Note
		}
		outs = append(outs, o)
	}
	if len(parts) > 1 {
		// Each signature's outcome overwrote the last: keep the worst.
		for _, a := range []AxisName{AxisIssuerKey, AxisKeyStatus, AxisSignature} {
			c.res.Axes.Set(a, Axis{Status: StatusNotRun})
		}
		for _, o := range outs {
			for _, ax := range []struct {
				name AxisName
				v    Axis
			}{{AxisIssuerKey, o.key}, {AxisKeyStatus, o.status}, {AxisSignature, o.sig}} {
				if cur := c.res.Axes.Of(ax.name); statusRank(ax.v.Status) > statusRank(cur.Status) {
					c.res.Axes.Set(ax.name, ax.v)
				}
			}
		}
		c.noteSignature(itoa(len(parts)) + " signatures, each verified")
	}
	switch {
	case compact:
		c.noteSignature("compact serialization")
	case unprotected && len(parts) > 1:
		// coverage.go names a flattened JWS's header; a general one's
		// are inside its signatures.
		c.noteSignature("the signatures' unprotected headers are not signed")
	}
}

// statusRank orders axis outcomes from best to worst.
func statusRank(s Status) int {
	switch s {
	case StatusPass:
		return 1
	case StatusSkipped:
		return 2
	case StatusFail:
		return 3
	}
	return 0
}

func (c *check) jwsVerifyOne(p jwsPart, payload string, claims *canon.Value) {
	// A part's outcome starts afresh (set keeps a FAIL otherwise).
	for _, a := range []AxisName{AxisIssuerKey, AxisKeyStatus, AxisSignature} {
		c.res.Axes.Set(a, Axis{Status: StatusNotRun})
	}
	hdrBytes, err := jwsB64.DecodeString(p.protected)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "protected header is not base64url: "+err.Error())
		return
	}
	hdr, err := canon.Parse(hdrBytes, receiptParse)
	if err != nil || hdr.Kind != canon.Object {
		c.fail(AxisSignature, ReasonMalformed, "protected header is not a JSON object")
		return
	}
	if p.header != nil && p.header.Kind != canon.Object {
		c.fail(AxisStructure, ReasonBadField, "header must be an object")
		return
	}
	param := func(name string) string {
		if s := str(&hdr, name); s != "" || p.header == nil {
			return s
		}
		return str(p.header, name)
	}
	if hdr.Get("crit") != nil {
		c.skip(AxisSignature, ReasonUnsupported, "the protected header names critical extensions (crit), which this tool does not implement")
		return
	}
	if b := hdr.Get("b64"); b != nil {
		c.skip(AxisSignature, ReasonUnsupported, "an unencoded payload (b64) is not checked")
		return
	}
	alg := param("alg")
	if alg == "" {
		c.fail(AxisSignature, ReasonMissingField, "the header names no alg")
		return
	}
	if alg == "none" {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "alg none: an unsecured JWS, which no key signed")
		return
	}
	if payload == "" {
		c.skip(AxisSignature, ReasonUnsupported, "a detached payload is not checked")
		return
	}
	kid := param("kid")
	var key *keys.Key
	switch {
	case kid != "":
		key = c.keyByID(kid)
	case claims != nil && str(claims, "iss") != "":
		key = c.keyByID(str(claims, "iss"))
	default:
		c.skip(AxisIssuerKey, ReasonUnknownKey, "the header names no kid and the payload no iss to find the key by")
		c.skip(AxisKeyStatus, ReasonUncheckable, "no key")
		c.skip(AxisSignature, ReasonUncheckable, "no key")
		return
	}
	if key == nil {
		return
	}
	c.keyStatus(key)
	sig, err := jwsB64.DecodeString(p.signature)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not base64url: "+err.Error())
		return
	}
	msg := make([]byte, 0, len(p.protected)+1+len(payload))
	msg = append(append(append(msg, p.protected...), '.'), payload...)
	c.verifySignature(key, alg, msg, sig)
}

// jwsTimes fills the issue and expiry times from the JWT claims iat and
// exp (NumericDate, seconds since the epoch), when the format has no
// other.
func jwsTimes(f *Fields, claims *canon.Value) {
	at := func(name string) string {
		v := claims.Get(name)
		if v == nil || v.Kind != canon.Number {
			return ""
		}
		n, err := strconv.ParseFloat(v.Text, 64)
		if err != nil || n < 0 || n > 253402300799 {
			return ""
		}
		return time.Unix(int64(n), 0).UTC().Format(time.RFC3339)
	}
	if f.IssuedAt == "" {
		f.IssuedAt = at("iat")
	}
	if f.ExpiresAt == "" {
		f.ExpiresAt = at("exp")
	}
}

func checkJWS(c *check) {
	payload, err := jwsB64.DecodeString(str(c.doc, "payload"))
	if err != nil {
		c.fail(AxisStructure, ReasonBadEncoding, "payload is not base64url: "+err.Error())
		return
	}
	claims := jwsClaims(c.doc)
	f := &c.res.Fields
	if claims != nil {
		f.ActionID = str(claims, "jti")
		f.IssuerID = str(claims, "iss")
		f.AgentID = str(claims, "sub")
		f.Nonce = str(claims, "nonce")
		jwsTimes(f, claims)
	} else if len(payload) > 0 && payload[0] == '{' {
		c.fail(AxisStructure, ReasonMalformed, "the payload is not a JSON object")
		return
	}
	c.notRun(AxisIssuerBind, "the key is found by the header's kid (or the iss claim); the key files bind no other issuer")
	c.notRun(AxisAnchors, "JWS receipts carry no anchors")
	c.jwsVerify(claims)
}
