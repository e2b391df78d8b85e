package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"strconv"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
)

// The helpers below are shared by the formats: canonical forms, member
// lists, key lookup and notes.

// nfcCopy returns a copy of v with every string and member name in Unicode
// NFC, as the ACTA, AERF, agentreceipts and pipelock reference verifiers
// normalize before canonicalizing. changed reports whether anything was
// not in NFC already. Two names of one object that become equal are an
// error: the reference would silently keep one of them.
func nfcCopy(v *canon.Value) (out canon.Value, changed bool, err error) {
	switch v.Kind {
	case canon.String:
		s := norm.NFC.String(v.Text)
		return canon.Value{Kind: canon.String, Text: s}, s != v.Text, nil
	case canon.Array:
		out = canon.Value{Kind: canon.Array, Items: make([]canon.Value, len(v.Items))}
		for i := range v.Items {
			item, ch, err := nfcCopy(&v.Items[i])
			if err != nil {
				return canon.Value{}, false, err
			}
			out.Items[i], changed = item, changed || ch
		}
		return out, changed, nil
	case canon.Object:
		out = canon.Value{Kind: canon.Object, Members: make([]canon.Member, len(v.Members))}
		for i := range v.Members {
			m := &v.Members[i]
			name := norm.NFC.String(m.Name)
			if name != m.Name {
				changed = true
				for j := range v.Members {
					if j != i && norm.NFC.String(v.Members[j].Name) == name {
						return canon.Value{}, false, errors.New("member names " + quoteShort(m.Name) + " and " + quoteShort(v.Members[j].Name) + " are equal after NFC")
					}
				}
			}
			val, ch, err := nfcCopy(&m.Value)
			if err != nil {
				return canon.Value{}, false, err
			}
			out.Members[i], changed = canon.Member{Name: name, Value: val}, changed || ch
		}
		return out, changed, nil
	}
	return *v, false, nil
}

// canonicalNFC writes v in dialect d after NFC normalization.
func canonicalNFC(d *canon.Dialect, v *canon.Value) ([]byte, bool, error) {
	n, changed, err := nfcCopy(v)
	if err != nil {
		return nil, false, err
	}
	b, err := d.Append(nil, &n)
	return b, changed, err
}

func nfcNote(changed bool) string {
	if changed {
		return "signed over the NFC form; the receipt's own text is not in NFC"
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
	b, err := canon.RFC8785.Append(nil, v)
	if err != nil {
		return "a " + v.Kind.String()
	}
	if len(b) > 64 {
		return strconv.Quote(string(b[:64])) + "..."
	}
	return string(b)
}

func itoa(i int) string { return formatInt(int64(i)) }

// issuedOrNow is the instant a key's status is judged at.
func (c *check) issuedOrNow() time.Time {
	if t, ok := parseTime(c.res.Fields.IssuedAt); ok {
		return t
	}
	return c.v.at
}
