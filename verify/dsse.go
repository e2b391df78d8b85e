package verify

import (
	"errors"
	"strings"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// A DSSE attestation, {payloadType, payload (base64), signatures: [{keyid,
// sig}]}, is signed over the pre-authentication encoding
// "DSSEv1 " len(type) " " type " " len(body) " " body of the decoded
// payload. As in the reference verifier (go-securesystemslib
// dsse/verify.go, threshold one), the envelope is accepted when one
// signature verifies under a key of the directory; a signature that does
// not is skipped, and every signature's outcome is named in the note. A
// signature's keyid names its key; one without a keyid is tried against
// every key it could be by, up to limits.MaxDSSEKeyTrials per envelope.
// The payload is a base64 string, which sets the envelope apart from
// every format whose payload is an object.
var dsseFormat = format{name: "dsse-attestation", detect: isDSSE, check: checkDSSE, signs: []string{"payloadType", "payload", "signatures"}}

func isDSSE(doc *canon.Value) bool {
	p := doc.Get("payload")
	return doc.Get("payloadType") != nil && doc.Get("signatures") != nil && p != nil && p.Kind == canon.String
}

func checkDSSE(c *check) {
	typ, ok1 := c.requireStr(c.doc, "", "payloadType")
	payload, ok2 := c.requireStr(c.doc, "", "payload")
	sigs := c.doc.Get("signatures")
	if !ok1 || !ok2 {
		return
	}
	if sigs.Kind != canon.Array || len(sigs.Items) == 0 {
		c.fail(AxisStructure, ReasonBadField, "signatures must be a non-empty list")
		return
	}
	if len(sigs.Items) > limits.MaxDSSESignatures {
		c.fail(AxisStructure, ReasonBadField, "signatures holds "+itoa(len(sigs.Items))+" entries, more than the limit of "+itoa(limits.MaxDSSESignatures))
		return
	}
	// The payload is the attested document (an SBOM or provenance runs to
	// megabytes): bounded by the line, not by the key and signature limit.
	body, err := sigalg.DecodeBase64AnyUpTo(payload, limits.MaxLineBytes)
	if err != nil {
		c.fail(AxisStructure, ReasonBadEncoding, "payload is not base64: "+err.Error())
		return
	}
	dsseFields(c, body)
	c.notRun(AxisIssuerBind, "DSSE envelopes name no issuer outside the payload")
	c.notRun(AxisAnchors, "DSSE envelopes carry no anchors")
	msg := dsse.PAE(typ, body)
	c.signed(msg)

	var (
		notes    []string
		accepted *dsseOutcome // the verified signature whose key stands best
		rejected *dsseOutcome // the first known key whose signature did not verify
		unusable *dsseOutcome // the first known key that cannot verify at all
		lastErr  error        // why the last key could not be found
		verified int
		trials   = limits.MaxDSSEKeyTrials
	)
	issued := timeOf(c.res.Fields.IssuedAt)
	for i := range sigs.Items {
		s := &sigs.Items[i]
		sigText := str(s, "sig")
		if s.Kind != canon.Object || sigText == "" {
			c.fail(AxisStructure, ReasonBadField, "signatures["+itoa(i)+"] needs a sig")
			return
		}
		kid := str(s, "keyid")
		where := "signatures[" + itoa(i) + "]"
		// The reference refuses the whole envelope when one sig is not
		// base64, whoever signed it.
		sig, err := sigalg.DecodeBase64Any(sigText)
		if err != nil {
			c.fail(AxisSignature, ReasonBadEncoding, where+": sig is not base64")
			return
		}
		key, err := c.v.keys.ResolveAsqav(kid, c.res.Fields.AgentID, c.res.Fields.IssuerID, "")
		cands := []*keys.Key{key}
		if err != nil {
			cands = nil
			if kid == "" {
				cands = dsseKeysFor(c.v.keys, sig)
			}
			switch {
			case len(cands) == 0:
				lastErr = err
				notes = append(notes, where+": keyid "+quoteShort(kid)+" is not in the key directory, skipped")
				continue
			case len(cands) > trials:
				lastErr = err
				notes = append(notes, where+": no keyid, and "+itoa(len(cands))+" keys could have made it, more than the "+itoa(trials)+" left to try, skipped")
				continue
			}
			trials -= len(cands)
		}
		var o *dsseOutcome
		for _, key := range cands {
			if key.Public == nil {
				if unusable == nil {
					unusable = &dsseOutcome{key: key, sigText: sigText}
				}
				continue
			}
			if form, err := dsseVerify(key, msg, sig); err == nil {
				o = &dsseOutcome{key: key, sigText: sigText, form: form, standing: dsseStanding(key.CheckStatus(issued, c.v.at))}
				break
			}
		}
		switch {
		case o != nil:
			notes = append(notes, where+": "+o.form+" by "+o.key.Label()+" verifies")
			verified++
			if accepted == nil || o.standing < accepted.standing {
				accepted = o
			}
		case len(cands) == 1 && cands[0].Public == nil && errors.Is(cands[0].Err, keys.ErrUnsupportedAlg):
			notes = append(notes, where+": key "+cands[0].Label()+" is of an algorithm this tool does not check, skipped")
		case len(cands) == 1 && cands[0].Public == nil:
			notes = append(notes, where+": key "+cands[0].Label()+" is unusable, skipped")
		case len(cands) == 1:
			notes = append(notes, where+": "+string(cands[0].Alg)+" by "+cands[0].Label()+" does not verify, skipped")
			if rejected == nil {
				rejected = &dsseOutcome{key: cands[0], sigText: sigText}
			}
		default:
			notes = append(notes, where+": no keyid, and none of the "+itoa(len(cands))+" keys that could have made it verifies, skipped")
			if rejected == nil {
				rejected = &dsseOutcome{key: cands[0], sigText: sigText}
			}
		}
	}
	note := strings.Join(notes, "; ")
	switch {
	case accepted != nil:
		c.dsseKey(accepted)
		c.pass(AxisSignature, itoa(verified)+" of "+itoa(len(sigs.Items))+" signatures verify: "+note)
	case rejected != nil:
		c.dsseKey(rejected)
		c.fail(AxisSignature, ReasonBadSignature, "no signature verifies: "+note)
	case unusable != nil && errors.Is(unusable.key.Err, keys.ErrUnsupportedAlg):
		// A key of an algorithm this tool does not check proves nothing
		// either way: the signature is not checked, not failed.
		c.dsseKey(unusable)
		c.skip(AxisSignature, ReasonUnsupportedAlg, "no signature verifies: "+note+": "+unusable.key.Err.Error())
	case unusable != nil:
		c.dsseKey(unusable)
		c.fail(AxisSignature, ReasonMalformedKey, "no signature verifies: "+note+": "+unusable.key.Err.Error())
	default:
		c.resolveFailed(lastErr)
		c.skip(AxisSignature, ReasonUncheckable, "no key: "+note)
	}
}

// dsseKeysFor lists the keys a signature without a keyid may be by, as the
// reference verifier tries every trusted key on one: those of an algorithm
// whose signatures have its length (an ECDSA one in either form).
func dsseKeysFor(dir *keys.Directory, sig []byte) []*keys.Key {
	var out []*keys.Key
	for _, k := range dir.Keys() {
		n := k.Alg.SignatureSize()
		if k.Public != nil {
			n = k.Public.SignatureSize()
		}
		// DER adds at most 9 bytes to r||s: the SEQUENCE's tag and length,
		// each INTEGER's tag, length and a leading zero.
		if n == len(sig) || (k.Alg.IsECDSA() && len(sig) > 0 && sig[0] == 0x30 && len(sig) <= n+9) {
			out = append(out, k)
		}
	}
	return out
}

// dsseOutcome is one signature of an envelope whose key the directory holds.
type dsseOutcome struct {
	key      *keys.Key
	sigText  string
	form     string // the algorithm and encoding that verified; empty if none did
	standing int    // dsseStanding of the key at the receipt's issue time
}

// dsseStanding ranks a key status error, best first, so that of several
// verified signatures the one whose key is in good standing is reported.
func dsseStanding(err error) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, keys.ErrRevokedAfterIssue):
		return 1
	}
	return 2
}

// dsseKey reports the key and status of the signature the verdict rests on.
func (c *check) dsseKey(o *dsseOutcome) {
	c.pass(AxisIssuerKey, o.key.Label())
	c.res.Fields.KeyID = o.key.KID
	c.res.Fields.Alg = string(o.key.Alg)
	c.res.Fields.Signature = o.sigText
	c.keyStatus(o.key)
}

// dsseVerify checks one DSSE signature and names the form that verified.
// DSSE leaves the signature's encoding to the scheme, and ECDSA signers
// differ: go-securesystemslib, in-toto and sigstore write ASN.1 DER, JOSE
// style signers raw r||s. Either spells one (r, s), so both are accepted, on
// every curve; a value of the raw length, which can be either, is tried raw
// first, then as DER. RSA (PS256) and Ed25519 have one form.
func dsseVerify(key *keys.Key, msg, sig []byte) (string, error) {
	if !key.Alg.IsECDSA() {
		return string(key.Alg), key.Verify(msg, sig)
	}
	rawErr := error(nil)
	if len(sig) == key.Public.SignatureSize() {
		if rawErr = key.Verify(msg, sig); rawErr == nil {
			return string(key.Alg) + " (raw r||s)", nil
		}
	}
	if len(sig) > 0 && sig[0] == 0x30 {
		derErr := key.Public.VerifyECDSADER(msg, sig)
		if derErr == nil {
			return string(key.Alg) + " (ASN.1 DER)", nil
		}
		if rawErr == nil {
			return "", derErr
		}
	}
	if rawErr == nil {
		rawErr = key.Verify(msg, sig) // the size error
	}
	return "", rawErr
}

// dsseFields reads the normalized fields from an in-toto Statement body,
// when the body is one.
func dsseFields(c *check, body []byte) {
	st, err := canon.Parse(body, receiptParse)
	if err != nil || st.Kind != canon.Object {
		return
	}
	pred := st.Get("predicate")
	if pred == nil || pred.Kind != canon.Object {
		return
	}
	f := &c.res.Fields
	f.ActionID = str(pred, "action_id")
	f.AgentID = str(pred, "agent_id")
	f.IssuerID = str(pred, "issuer_id")
	f.ActionType = str(pred, "action_type")
	f.ToolName = str(pred, "tool_name")
	f.ToolFingerprint = str(pred, "tool_fingerprint")
	f.IssuedAt = firstStr(pred, "issued_at", "timestamp")
}
