package keys

import (
	"crypto/sha256"
	"fmt"
	"time"
)

// Entries naming the same key id are one key: the order of key files, or
// of entries in one, never decides a verdict. mergeGroup folds the entries
// of one kid, in directory order, into that key:
//
//   - key material: every entry whose key loaded must carry the same
//     algorithm and bytes; an entry whose key did not load (a revocation
//     list entry without public_key, say) adds its status and ids only;
//   - agent_id, issuer_id, org_id: an entry may leave one out, but two
//     entries that give one must give the same;
//   - status: the strictest wins (compromised, revoked, suspended, any
//     unknown status, then active), and the earliest revoked_at, so a
//     snapshot and a later revocation list combine to the revocation.
//
// Two entries that disagree on key material or ids are a ReasonConflict
// error naming both.
func mergeGroup(g []*Key) (*Key, *Combined, error) {
	if len(g) == 1 {
		return g[0], nil, nil
	}
	base := g[0]
	for _, k := range g {
		if k.Public != nil {
			base = k
			break
		}
	}
	m := *base
	status, revoked := base, (*Key)(nil)
	ids := [3]*Key{} // the entry that gave agent_id, issuer_id, org_id
	for _, k := range g {
		if k.Public != nil && !k.Public.Equal(base.Public) {
			return nil, nil, conflict(base, k, "different public keys ("+keyID(base)+" and "+keyID(k)+")")
		}
		for i, f := range []struct {
			name     string
			dst, src *string
		}{{"agent_id", &m.AgentID, &k.AgentID}, {"issuer_id", &m.IssuerID, &k.IssuerID}, {"org_id", &m.OrgID, &k.OrgID}} {
			switch {
			case *f.src == "":
			case *f.dst == "":
				*f.dst, ids[i] = *f.src, k
			case *f.dst != *f.src:
				from := ids[i]
				if from == nil {
					from = base
				}
				return nil, nil, conflict(from, k, "different "+f.name+" ("+quote(*f.dst)+" and "+quote(*f.src)+")")
			}
		}
		if statusRank(k.Status) > statusRank(status.Status) {
			status = k
		}
		if !k.RevokedAt.IsZero() && (revoked == nil || k.RevokedAt.Before(revoked.RevokedAt)) {
			revoked = k
		}
	}
	m.Status = status.Status
	if revoked != nil {
		m.RevokedAt = revoked.RevokedAt
	}
	// The source a verdict's note names is the entry that decides the key's
	// state: the strictest status, else the earliest revocation.
	switch {
	case !m.Status.Usable():
		m.Source = status.Source
	case revoked != nil:
		m.Source = revoked.Source
	}
	m.label = m.makeLabel()

	c := &Combined{KID: m.KID, Status: m.Status, RevokedAt: m.RevokedAt, Decides: m.Source}
	differs := false
	for _, k := range g {
		c.Entries = append(c.Entries, k.Source)
		if k.Status != m.Status || !k.RevokedAt.Equal(m.RevokedAt) {
			differs = true
		}
	}
	if !differs {
		c = nil
	}
	return &m, c, nil
}

// Combined records a key id whose entries gave different statuses or
// revocation times, and the state they combined to.
type Combined struct {
	KID       string
	Entries   []Source // every entry of the kid, in directory order
	Status    Status
	RevokedAt time.Time // zero when no entry gave one
	Decides   Source    // the entry whose status or revoked_at the key has
}

func (c Combined) String() string {
	s := fmt.Sprintf("kid %s: %d entries combined to status %s", quote(c.KID), len(c.Entries), c.Status)
	if !c.RevokedAt.IsZero() {
		s += ", revoked at " + c.RevokedAt.Format(time.RFC3339Nano)
	}
	return s + " (from " + c.Decides.String() + ")"
}

// statusRank orders statuses from the most usable to the strictest. A
// status this package does not know is not usable, so it ranks above
// active; the known bad states rank above it by how bad they are.
func statusRank(s Status) int {
	switch s {
	case StatusActive:
		return 0
	case StatusSuspended:
		return 2
	case StatusRevoked:
		return 3
	case StatusCompromised:
		return 4
	}
	return 1
}

func conflict(a, b *Key, detail string) error {
	return &Error{Reason: ReasonConflict, File: b.Source.File, Index: b.Source.Index, ID: b.KID,
		Detail: a.Source.String() + " and " + b.Source.String() + " give one key id " + detail}
}

// keyID names a key's material in a message: its algorithm and the start
// of the SHA-256 of its bytes.
func keyID(k *Key) string {
	sum := sha256.Sum256(k.Public.Bytes())
	return fmt.Sprintf("%s, SHA-256 %x...", k.Public.Alg(), sum[:6])
}
