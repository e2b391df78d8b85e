package verify

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An Authproof delegation receipt, as the reference JS SDK
// (Commonguy25/authproof-sdk) mints it, is a flat object signed with ES256
// over JSON.stringify of the receipt minus signature, in the object's own
// member order (not canonical JSON, no pre-hash). The signature is hex of
// the raw 64-byte r||s; the signer's key is embedded as a P-256 JWK in
// signerPublicKey, so it is self-asserted: a valid signature proves the
// receipt was not altered since someone holding that key signed it, not
// who that was. The receipt carries no chain link.
var authproofFormat = format{name: "authproof", detect: isAuthproof, check: checkAuthproof}

var authproofRequired = []string{"delegationId", "issuedAt", "scope", "boundaries", "timeWindow", "operatorInstructions", "instructionsHash", "signerPublicKey", "signature"}

func isAuthproof(doc *canon.Value) bool {
	id := doc.Get("delegationId")
	return id != nil && id.Kind == canon.String && doc.Get("signerPublicKey") != nil && doc.Get("instructionsHash") != nil
}

func checkAuthproof(c *check) {
	doc := c.doc
	f := &c.res.Fields
	for _, name := range authproofRequired {
		if v := doc.Get(name); v == nil || v.Kind == canon.Null {
			c.fail(AxisStructure, ReasonMissingField, name+" is missing")
		}
	}
	for _, name := range []string{"issuedAt", "scope", "boundaries", "operatorInstructions", "instructionsHash"} {
		if v := doc.Get(name); v != nil && v.Kind != canon.String && v.Kind != canon.Null {
			c.fail(AxisStructure, ReasonBadField, name+" must be a string, not "+v.Kind.String())
		}
	}
	f.ActionID = str(doc, "delegationId")
	f.AgentID = str(doc, "agentId")
	f.IssuedAt = str(doc, "issuedAt")
	if tw := doc.Get("timeWindow"); tw != nil {
		if tw.Kind != canon.Object {
			c.fail(AxisStructure, ReasonBadField, "timeWindow must be an object")
		}
		f.ExpiresAt = str(tw, "end")
	}
	body := withoutMembers(doc, "signature")
	msg, err := appendJSONStringify(nil, &body)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "receipt cannot be serialized as JSON.stringify would: "+err.Error())
		return
	}
	sigText, okSig := c.requireStr(doc, "", "signature")
	f.Signature = sigText
	jwk := doc.Get("signerPublicKey")
	if jwk == nil || jwk.Kind != canon.Object {
		if jwk != nil {
			c.fail(AxisStructure, ReasonBadField, "signerPublicKey must be a JWK object")
		}
		c.skip(AxisSignature, ReasonUncheckable, "no embedded key")
		return
	}
	raw, err := canon.RFC8785().Append(nil, jwk)
	var key *keys.Key
	if err == nil {
		key, err = keys.ParseJWK("signerPublicKey", raw)
	}
	if err != nil {
		c.fail(AxisIssuerKey, ReasonMalformedKey, "signerPublicKey: "+err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "no usable key")
		return
	}
	f.KeySelfAsserted = true
	f.KeyID = "signerPublicKey"
	c.pass(AxisIssuerKey, "embedded signerPublicKey (self-asserted)")
	c.notRun(AxisIssuerBind, "the key is embedded; there is no issuer to bind it to")
	c.notRun(AxisKeyStatus, "an embedded key has no lifecycle status")
	if !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "no signature")
		return
	}
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, string(sigalg.ES256), msg, sig)
	c.noteSignature("key self-asserted (embedded JWK)")
}

// appendJSONStringify writes v as JavaScript's JSON.stringify(JSON.parse(x))
// would: object members in the engine's property order (array-index names
// in ascending numeric order first, then the others as written), strings
// with JSON.stringify's escapes (\" \\ \b \f \n \r \t, \u00xx for other
// controls, everything else raw), numbers as doubles in Number#toString
// form (1.0 is 1, -0 is 0; a literal beyond the double range is Infinity,
// which prints as null).
func appendJSONStringify(dst []byte, v *canon.Value) ([]byte, error) {
	var err error
	switch v.Kind {
	case canon.Null:
		return append(dst, "null"...), nil
	case canon.True:
		return append(dst, "true"...), nil
	case canon.False:
		return append(dst, "false"...), nil
	case canon.Number:
		f, perr := strconv.ParseFloat(v.Text, 64)
		if math.IsInf(f, 0) {
			return append(dst, "null"...), nil
		}
		if perr != nil {
			return nil, perr
		}
		return canon.AppendES6(dst, f), nil
	case canon.String:
		return appendJSString(dst, v.Text), nil
	case canon.Array:
		dst = append(dst, '[')
		for i := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			if dst, err = appendJSONStringify(dst, &v.Items[i]); err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case canon.Object:
		dst = append(dst, '{')
		for i, m := range jsPropertyOrder(v.Members) {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSString(dst, m.Name)
			dst = append(dst, ':')
			if dst, err = appendJSONStringify(dst, &m.Value); err != nil {
				return nil, err
			}
		}
		return append(dst, '}'), nil
	}
	return nil, strconv.ErrSyntax
}

// jsPropertyOrder orders members as a JavaScript object enumerates them:
// names that are array indices (canonical decimal below 2^32-1) ascending,
// then the rest in insertion order.
func jsPropertyOrder(ms []canon.Member) []*canon.Member {
	var idx, rest []*canon.Member
	for i := range ms {
		if _, ok := arrayIndex(ms[i].Name); ok {
			idx = append(idx, &ms[i])
		} else {
			rest = append(rest, &ms[i])
		}
	}
	slices.SortStableFunc(idx, func(a, b *canon.Member) int {
		x, _ := arrayIndex(a.Name)
		y, _ := arrayIndex(b.Name)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return append(idx, rest...)
}

func arrayIndex(s string) (uint64, bool) {
	if s == "" || len(s) > 10 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n >= 1<<32-1 {
		return 0, false
	}
	return n, true
}

// appendJSString quotes s as JSON.stringify does. s is UTF-8 but for lone
// surrogates, held in WTF-8 form, which well-formed JSON.stringify (the
// SDK's signing input) writes as a lowercase \udxxx escape.
func appendJSString(dst []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 {
			r := 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			dst = append(dst, '\\', 'u', hexDigits[r>>12], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
			i += 3
			continue
		}
		if c >= utf8.RuneSelf {
			_, n := utf8.DecodeRuneInString(s[i:])
			dst = append(dst, s[i:i+n]...)
			i += n
			continue
		}
		switch {
		case c == '"':
			dst = append(dst, '\\', '"')
		case c == '\\':
			dst = append(dst, '\\', '\\')
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		default:
			dst = append(dst, c)
		}
		i++
	}
	return append(dst, '"')
}
