package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"

	"golang.org/x/text/unicode/norm"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
)

// An ACTA receipt (draft-farley-acta-signed-receipts, the draft Asqav
// profiles) is {payload, signature: {alg, kid, sig}}: Ed25519 over the
// canonical bytes of payload, signed directly, the signature in lowercase
// hex. Keys come from a JWK set, by kid.
//
// The canonical form is RFC 8785 (JCS), as the issuer (ScopeBlind's
// a2a-trust-header generator, over agent-passport-system's
// canonicalizeJCS) signs it and says in signature.canonicalization
// ("RFC8785-JCS"). The reference verifier (a2a-trust-header/verify.ts)
// canonicalizes with RFC 8785 whatever that member says, and so does this
// tool, naming any other value in the signature's note. Nothing is
// Unicode-normalized: the issuer signs the text as given.
//
// Detection: payload and signature objects, no anchors member (the
// Asqav-native envelope marker) and a signature.sig of lowercase hex.
// Asqav-native signatures are base64, which always carries characters hex
// does not, so the two shapes are disjoint.
//
// Chain: payload.previousReceiptHash is the hex SHA-256 of the canonical
// bytes of the full predecessor receipt, signature included. A genesis
// receipt omits it; null is malformed.
//
// Commitment mode (signing SHA-256 of the canonical bytes) is not
// implemented; a receipt whose signature verifies only that way fails the
// signature axis as unsupported, never passes.
func init() {
	registerFormat(format{name: "acta", priority: 9, detect: isACTA, check: checkACTA, chainHash: actaChainHash})
}

func isACTA(doc *canon.Value) bool {
	p, s := doc.Get("payload"), doc.Get("signature")
	if p == nil || p.Kind != canon.Object || s == nil || s.Kind != canon.Object || doc.Get("anchors") != nil {
		return false
	}
	sig := s.Get("sig")
	return sig != nil && sig.Kind == canon.String && isLowerHex(sig.Text)
}

// isLowerHex reports whether s is non-empty, even-length lowercase hex.
func isLowerHex(s string) bool {
	if s == "" || len(s)%2 != 0 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func actaChainHash(doc *canon.Value) (string, error) {
	b, err := canon.RFC8785.Append(nil, doc)
	if err != nil {
		return "", err
	}
	return sha256Hex(b), nil
}

// actaCanonicalization is the one ACTA names, and the note to give when it
// is another: this tool, like the reference verifier, checks RFC 8785
// whatever the member says.
const actaCanonicalization = "RFC8785-JCS"

func actaCanonicalizationNote(sigObj *canon.Value) string {
	v := sigObj.Get("canonicalization")
	if v == nil || (v.Kind == canon.String && v.Text == actaCanonicalization) {
		return ""
	}
	label := jsonText(v)
	if v.Kind == canon.String {
		label = quoteShort(v.Text)
	}
	return "signature.canonicalization is " + label + ", not " + actaCanonicalization + ": RFC 8785 was checked, as the reference verifier does whatever the member says"
}

func checkACTA(c *check) {
	p, sigObj := c.doc.Get("payload"), c.doc.Get("signature")
	f := &c.res.Fields
	f.ActionID = str(p, "action_id")
	f.AgentID = str(p, "agent_id")
	f.IssuerID = firstStr(p, "issuer_id", "issuer")
	f.OrgID = str(p, "org_id")
	f.SessionID = str(p, "session_id")
	f.ActionType = str(p, "action_type")
	f.ToolName = str(p, "tool_name")
	f.ToolFingerprint = str(p, "tool_fingerprint")
	f.Nonce = str(p, "nonce")
	// A deny receipt of the issuer carries attempted_at instead.
	f.IssuedAt = firstStr(p, "issued_at", "attempted_at")
	f.ExpiresAt = str(p, "expires_at")
	f.Decision = str(p, "decision")

	alg, okAlg := c.requireStr(sigObj, "signature.", "alg")
	kid, okKid := c.requireStr(sigObj, "signature.", "kid")
	sigText, okSig := c.requireStr(sigObj, "signature.", "sig")
	f.KeyID, f.Signature = kid, sigText

	if h, err := actaChainHash(c.doc); err == nil {
		c.res.Fingerprints.ChainHash = h
	}
	if prev := p.Get("previousReceiptHash"); prev != nil {
		switch prev.Kind {
		case canon.Null:
			c.fail(AxisStructure, ReasonBadField, "payload.previousReceiptHash is null: a genesis receipt omits it")
		case canon.String:
			c.link = chainLink{present: true, prev: normalizeHash(prev.Text)}
		default:
			c.fail(AxisStructure, ReasonBadField, "payload.previousReceiptHash must be a string")
		}
	}

	msg, err := canon.RFC8785.Append(nil, p)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, "payload cannot be canonicalized: "+err.Error())
		return
	}
	if !okAlg || !okKid || !okSig {
		c.skip(AxisSignature, ReasonUncheckable, "signature triple incomplete")
		return
	}
	if a, err := sigalg.ParseAlg(alg); err != nil || a != sigalg.Ed25519 {
		c.fail(AxisSignature, ReasonUnsupportedAlg, "ACTA alg "+quoteShort(alg)+": only the EdDSA baseline is implemented")
		return
	}
	key := c.keyByID(kid)
	if key == nil {
		return
	}
	// False-attestation guard of the reference: a payload that names an
	// issuer must name the signing key.
	switch issuer := f.IssuerID; {
	case issuer != "" && issuer != kid:
		c.fail(AxisIssuerBind, ReasonIssuerMismatch, "payload names issuer "+quoteShort(issuer)+" but is signed by kid "+quoteShort(kid))
	case issuer != "":
		c.pass(AxisIssuerBind, "issuer is the signing kid")
	default:
		c.notRun(AxisIssuerBind, "payload names no issuer")
	}
	if pk := sigObj.Get("pubkey"); pk != nil {
		raw, err := sigalg.DecodeHex(str(sigObj, "pubkey"))
		if pk.Kind != canon.String || err != nil || !bytes.Equal(raw, key.Public.Bytes()) {
			c.fail(AxisIssuerBind, ReasonIssuerMismatch, "signature.pubkey is not the directory's key for kid "+quoteShort(kid))
		}
	}
	c.keyStatus(key)
	sig, err := sigalg.DecodeHex(sigText)
	if err != nil {
		c.fail(AxisSignature, ReasonBadEncoding, "signature.sig is not hex: "+err.Error())
		return
	}
	c.verifySignature(key, alg, msg, sig)
	canonNote := actaCanonicalizationNote(sigObj)
	if ax := c.res.Axes.Of(AxisSignature); ax.Status == StatusFail && ax.Reason == ReasonBadSignature {
		sum := sha256.Sum256(msg)
		if key.Verify(sum[:], sig) == nil {
			c.fail(AxisSignature, ReasonUnsupported, "the signature covers SHA-256 of the canonical payload: ACTA commitment mode, which this tool does not verify")
			return
		}
		c.noteFailure(canonNote)
		c.hintNormalization(key, canon.RFC8785, p, sig)
		return
	}
	c.noteSignature(canonNote)
}

// The helpers below are shared by the ACTA, AERF, agentreceipts, authproof
// and pipelock formats.

// normCopy returns a copy of v with every string and member name in the
// Unicode normal form f. changed reports whether anything was not in that
// form already. Two names of one object that become equal are an error:
// the pipelock reference, which normalizes to NFC, refuses them too.
func normCopy(f norm.Form, v *canon.Value) (out canon.Value, changed bool, err error) {
	switch v.Kind {
	case canon.String:
		s := f.String(v.Text)
		return canon.Value{Kind: canon.String, Text: s}, s != v.Text, nil
	case canon.Array:
		out = canon.Value{Kind: canon.Array, Items: make([]canon.Value, len(v.Items))}
		for i := range v.Items {
			item, ch, err := normCopy(f, &v.Items[i])
			if err != nil {
				return canon.Value{}, false, err
			}
			out.Items[i], changed = item, changed || ch
		}
		return out, changed, nil
	case canon.Object:
		out = canon.Value{Kind: canon.Object, Members: make([]canon.Member, len(v.Members))}
		renamed := false
		for i := range v.Members {
			m := &v.Members[i]
			name := f.String(m.Name)
			renamed = renamed || name != m.Name
			val, ch, err := normCopy(f, &m.Value)
			if err != nil {
				return canon.Value{}, false, err
			}
			out.Members[i], changed = canon.Member{Name: name, Value: val}, changed || ch
		}
		if renamed {
			// Names were distinct as parsed; only a renaming can collide.
			seen := make(map[string]int, len(out.Members))
			for i, m := range out.Members {
				if j, dup := seen[m.Name]; dup {
					return canon.Value{}, false, errors.New("member names " + quoteShort(v.Members[j].Name) + " and " + quoteShort(v.Members[i].Name) + " are equal after normalization")
				}
				seen[m.Name] = i
			}
		}
		return out, changed || renamed, nil
	}
	return *v, false, nil
}

// hintNormalization explains a bad signature that a Unicode-normalized
// copy of the signed value (v, written in dialect d) would verify: the
// text was normalized after signing (or signed by another tool), since the
// producers that call this sign and check their text as given. The
// verdict stays FAIL, as the producer's own verifier gives it.
func (c *check) hintNormalization(key *keys.Key, d *canon.Dialect, v *canon.Value, sig []byte) {
	ax := c.res.Axes.Of(AxisSignature)
	if ax.Status != StatusFail || ax.Reason != ReasonBadSignature {
		return
	}
	for _, f := range []struct {
		form norm.Form
		name string
	}{{norm.NFC, "NFC"}, {norm.NFD, "NFD"}} {
		n, changed, err := normCopy(f.form, v)
		if err != nil || !changed {
			continue
		}
		if b, err := d.Append(nil, &n); err == nil && key.Verify(b, sig) == nil {
			c.noteFailure("the " + f.name + " form of the text would verify: the producer signs its text as given, so this text is not what was signed")
			return
		}
	}
}

// noteFailure appends extra to a failed signature axis's note.
func (c *check) noteFailure(extra string) {
	ax, ok := c.res.Axes.Get(AxisSignature)
	if !ok || ax.Status != StatusFail || extra == "" {
		return
	}
	if ax.Note != "" {
		extra = ax.Note + "; " + extra
	}
	c.res.Axes.Set(AxisSignature, Axis{Status: StatusFail, Reason: ax.Reason, Note: extra})
}

// canonicalNFC writes v in dialect d after NFC normalization, for the
// producers that normalize before signing (pipelock).
func canonicalNFC(d *canon.Dialect, v *canon.Value) ([]byte, bool, error) {
	n, changed, err := normCopy(norm.NFC, v)
	if err != nil {
		return nil, false, err
	}
	b, err := d.Append(nil, &n)
	return b, changed, err
}

func nfcNote(changed bool) string {
	if changed {
		return "signed over the NFC form, as the producer normalizes; the receipt's own text is not in NFC"
	}
	return ""
}

// withoutMembers returns a shallow copy of obj without the named members.
func withoutMembers(obj *canon.Value, drop ...string) canon.Value {
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, len(obj.Members))}
	for _, m := range obj.Members {
		if !slices.Contains(drop, m.Name) {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// keyByID resolves a key by the id on the wire (kid, key_id,
// signer_key_id) and records the issuer_key axis; nil when none matches.
func (c *check) keyByID(id string) *keys.Key {
	key, err := c.v.keys.ByID(id)
	if err != nil {
		c.resolveFailed(err)
		return nil
	}
	c.pass(AxisIssuerKey, key.Label())
	c.res.Fields.KeyID = key.KID
	return key
}

// noteSignature appends extra to a passing signature axis's note.
func (c *check) noteSignature(extra string) {
	ax, ok := c.res.Axes.Get(AxisSignature)
	if !ok || ax.Status != StatusPass || extra == "" {
		return
	}
	if ax.Note != "" {
		extra = ax.Note + "; " + extra
	}
	c.res.Axes.Set(AxisSignature, Axis{Status: StatusPass, Note: extra})
}

// quoteShort quotes hostile text for a note, bounded in length.
func quoteShort(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + "..."
	}
	return strconv.Quote(s)
}
