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
)

// The helpers below are shared by the formats: canonical forms, member
// lists, key lookup and notes.

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
func (c *check) hintNormalization(key *keys.Key, d canon.Dialect, v *canon.Value, sig []byte) {
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
func canonicalNFC(d canon.Dialect, v *canon.Value) ([]byte, bool, error) {
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

// jsonText is v as compact JSON for a note (a string comes quoted),
// bounded in length.
func jsonText(v *canon.Value) string {
	b, err := canon.RFC8785().Append(nil, v)
	if err != nil {
		return "a " + v.Kind.String()
	}
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "..."
	}
	return string(b)
}

func itoa(i int) string { return formatInt(int64(i)) }

// legacyForm is a form an older producer release signed a receipt in,
// tried only when the current bytes fail: bytes gives the signed bytes
// from the receipt (doc) and the value the current form signs (signed),
// and chainHash reports whether that release also hashed those bytes for
// the chain link.
type legacyForm struct {
	note      string
	bytes     func(doc, signed *canon.Value) ([]byte, error)
	chainHash func(doc *canon.Value) bool
}

// legacyFallback checks a signature that failed over the current bytes
// (msg) against the bytes older releases signed, when they differ. It
// reports whether one verified: the signature then passes, with a note
// naming the form, and, where that release hashed the same bytes for the
// chain, the receipt's chain hash is taken over them, so that its
// successors' links resolve.
func (c *check) legacyFallback(forms []legacyForm, key *keys.Key, doc, signed *canon.Value, msg, sig []byte) bool {
	ax := c.res.Axes.Of(AxisSignature)
	if ax.Status != StatusFail || ax.Reason != ReasonBadSignature || key.Public == nil {
		return false
	}
	for _, form := range forms {
		legacy, err := form.bytes(doc, signed)
		if err != nil || bytes.Equal(legacy, msg) || key.Verify(legacy, sig) != nil {
			continue
		}
		c.signed(legacy)
		// set keeps a FAIL; this one was the current bytes', now superseded.
		c.res.Axes.Set(AxisSignature, Axis{Status: StatusPass, Note: string(key.Alg)})
		c.noteSignature(form.note)
		if form.chainHash(doc) {
			c.res.Fingerprints.ChainHash = sha256Hex(legacy)
		}
		if c.res.Fields.KeySelfAsserted {
			c.noteSignature("key self-asserted by did:key (proves possession, not identity)")
		}
		return true
	}
	return false
}
