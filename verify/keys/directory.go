package keys

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/receiptverify/verify/verify/sigalg"
)

// Directory is the merged trust material of several key files, in the order
// given (the CLI's repeatable --keys flag). It is immutable and safe for
// concurrent use. Entries naming the same key id are one key (see
// mergeGroup): two that give it different keys or ids are an error, and
// differing statuses combine to the strictest. Where several keys still
// match a receipt (the Asqav agent and issuer binds), the earliest wins, as
// it does in the reference verifiers that walk a key list, except that the
// keys an Asqav agent bind selects are all candidates
// (ResolveAsqavCandidates).
type Directory struct {
	snaps    []*Snapshot
	keys     []*Key
	byID     map[string]*Key
	byPublic map[string]*Key // alg and raw public key bytes, for receipts that embed their key
	combined []Combined
}

// NewDirectory merges snapshots. It fails if the key count exceeds MaxKeys,
// or with ReasonConflict if two entries give one key id different public
// keys, agent_id, issuer_id or org_id.
func NewDirectory(snaps ...*Snapshot) (*Directory, error) {
	d := &Directory{byID: make(map[string]*Key), byPublic: make(map[string]*Key)}
	groups := map[string][]*Key{}
	n := 0
	for _, s := range snaps {
		if s == nil {
			continue
		}
		if n+len(s.Keys) > MaxKeys {
			return nil, &Error{Reason: ReasonLimit, File: s.Name, Index: -1,
				Detail: fmt.Sprintf("more than %d keys in all", MaxKeys)}
		}
		n += len(s.Keys)
		d.snaps = append(d.snaps, s)
		for _, k := range s.Keys {
			if k.KID == "" {
				d.keys = append(d.keys, k)
				continue
			}
			if _, seen := groups[k.KID]; !seen {
				d.keys = append(d.keys, k) // the kid's place; replaced by the merged key below
			}
			groups[k.KID] = append(groups[k.KID], k)
		}
	}
	for i, k := range d.keys {
		if k.KID == "" {
			continue
		}
		m, c, err := mergeGroup(groups[k.KID])
		if err != nil {
			return nil, err
		}
		d.keys[i], d.byID[k.KID] = m, m
		if c != nil {
			d.combined = append(d.combined, *c)
		}
	}
	for _, k := range d.keys {
		if k.Public == nil {
			continue
		}
		if pk := publicKeyIndex(k.Alg, k.Public.Bytes()); d.byPublic[pk] == nil {
			d.byPublic[pk] = k
		}
	}
	return d, nil
}

func publicKeyIndex(alg sigalg.Alg, raw []byte) string { return string(alg) + "\x00" + string(raw) }

// ByPublicKey finds the directory's entry for a public key a receipt
// embeds (pipelock ActionReceipt v1 signer_key): the embedded key is only
// a claim, and it is trusted only when the directory lists it. The first
// entry in Directory order wins.
func (d *Directory) ByPublicKey(alg sigalg.Alg, raw []byte) (*Key, error) {
	if k, ok := d.byPublic[publicKeyIndex(alg, raw)]; ok {
		return k, nil
	}
	return nil, &Error{Reason: ReasonUnknownKey, Index: -1, ID: hex.EncodeToString(raw),
		Detail: "the embedded " + string(alg) + " key is not in the key directory"}
}

// Combined lists the key ids whose entries gave different statuses or
// revocation times, in directory order, for a warning: the combination is
// the strictest, but a key file that contradicts another deserves a look.
func (d *Directory) Combined() []Combined { return append([]Combined(nil), d.combined...) }

// Snapshots returns the merged snapshots in order.
func (d *Directory) Snapshots() []*Snapshot { return append([]*Snapshot(nil), d.snaps...) }

// Keys returns every key in resolution order, one per key id.
func (d *Directory) Keys() []*Key { return append([]*Key(nil), d.keys...) }

// Len is the number of keys, one per key id.
func (d *Directory) Len() int { return len(d.keys) }

// ResolveAsqav finds the key for an Asqav receipt, in the reference order:
//
//  1. an entry whose kid equals kid;
//  2. an entry whose agent_id equals agentID and whose issuer_id equals
//     issuerID (the payload's issuer_id) or whose org_id equals orgID (the
//     receipt's org_id);
//  3. an entry whose issuer_id or kid equals kid.
//
// Step 2 comes before the loose step 3 because a hash-mode receipt's kid is
// often the org id, which every sibling key of the org shares as issuer_id;
// only the agent bind singles out the signer (vector asqav-10). Empty
// arguments never match. Each step takes the first match in Directory
// order; ResolveAsqavCandidates gives every key of the deciding step.
func (d *Directory) ResolveAsqav(kid, agentID, issuerID, orgID string) (*Key, error) {
	ks, err := d.ResolveAsqavCandidates(kid, agentID, issuerID, orgID)
	if err != nil {
		return nil, err
	}
	return ks[0], nil
}

// ResolveAsqavCandidates returns the keys that may have signed an Asqav
// receipt, in Directory order, the first being ResolveAsqav's answer: the
// one exact kid match (step 1); else every key the agent bind selects
// (step 2), since after a rotation an agent has an old and a new key under
// one org and either may have signed; else the first loose match (step 3)
// alone, since a kid that is an org id names every key of the org, for any
// agent, and trying them all would accept a sibling's signature.
func (d *Directory) ResolveAsqavCandidates(kid, agentID, issuerID, orgID string) ([]*Key, error) {
	if kid != "" {
		for _, k := range d.keys {
			if k.KID == kid {
				return []*Key{k}, nil
			}
		}
	}
	var bound []*Key
	if agentID != "" {
		for _, k := range d.keys {
			if k.AgentID == agentID &&
				((issuerID != "" && k.IssuerID == issuerID) || (orgID != "" && k.OrgID == orgID)) {
				bound = append(bound, k)
			}
		}
	}
	if len(bound) > 0 {
		return bound, nil
	}
	if kid != "" {
		for _, k := range d.keys {
			if k.IssuerID == kid || k.KID == kid {
				return []*Key{k}, nil
			}
		}
	}
	return nil, &Error{Reason: ReasonUnknownKey, Index: -1, ID: kid,
		Detail: fmt.Sprintf("no key for kid, agent_id %s, issuer_id %s or org_id %s", quote(agentID), quote(issuerID), quote(orgID))}
}

// ByID finds a key by its id in a key map or JWK set (AERF key_id, ACTA
// kid, pipelock signer_key_id, a DID in a did map). A DID URL's
// "#fragment" is dropped if the full id is not found, since did maps key
// the DID itself; other ids must match exactly.
func (d *Directory) ByID(id string) (*Key, error) {
	if id != "" {
		if k, ok := d.byID[id]; ok {
			return k, nil
		}
		if base, _, ok := strings.Cut(id, "#"); ok && strings.HasPrefix(base, "did:") {
			if k, ok := d.byID[base]; ok {
				return k, nil
			}
		}
	}
	return nil, &Error{Reason: ReasonUnknownKey, Index: -1, ID: id}
}

// ResolveDID finds the key for a DID or DID URL (an agentreceipts
// verificationMethod). A did:key is decoded from the identifier itself
// (see ParseDIDKey); any other DID is looked up with ByID.
func (d *Directory) ResolveDID(ref string) (*Key, error) {
	if strings.HasPrefix(ref, didKeyPrefix) {
		return ParseDIDKey(ref)
	}
	return d.ByID(ref)
}
