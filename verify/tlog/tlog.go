// Package tlog checks RFC 9162 (RFC 6962) Merkle inclusion proofs against
// the roots a transparency log signed in its checkpoints, offline.
//
// The proof arithmetic is github.com/transparency-dev/merkle's, with its
// RFC 6962 SHA-256 hasher; this package adds the checkpoints a proof is
// judged against, keyed by the log's origin line, and says why a proof
// cannot be judged when no checkpoint of its log and size was given.
package tlog

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/transparency-dev/merkle/proof"
	"github.com/transparency-dev/merkle/rfc6962"
)

// HashSize is the size of a leaf, node and root hash: SHA-256.
const HashSize = 32

// MaxPath bounds an inclusion proof's length: a tree of 2^64 leaves needs
// 64 hashes.
const MaxPath = 64

// LeafHash is the RFC 6962 leaf hash of data: SHA-256(0x00 || data).
func LeafHash(data []byte) []byte { return rfc6962.DefaultHasher.HashLeaf(data) }

// NodeHash is the RFC 6962 interior node hash: SHA-256(0x01 || l || r).
func NodeHash(l, r []byte) []byte { return rfc6962.DefaultHasher.HashChildren(l, r) }

// VerifyInclusion checks that leaf is at index of a tree of size leaves
// whose root is root, by the audit path. The error says which part
// disagrees; it is nil only when the path leads to root.
func VerifyInclusion(leaf []byte, index, size uint64, path [][]byte, root []byte) error {
	if len(root) != HashSize {
		return errors.New("the root must be a 32-byte hash")
	}
	if err := checkPath(leaf, path); err != nil {
		return err
	}
	err := proof.VerifyInclusion(rfc6962.DefaultHasher, index, size, leaf, path, root)
	var mismatch proof.RootMismatchError
	if errors.As(err, &mismatch) {
		return fmt.Errorf("the audit path leads to root %x, not %x", mismatch.CalculatedRoot, mismatch.ExpectedRoot)
	}
	return err
}

// MaxConsistency bounds a consistency proof's length: between trees of up
// to 2^64 leaves it needs at most two hashes a level.
const MaxConsistency = 2 * MaxPath

// VerifyConsistency checks that the tree of newSize leaves whose root is
// newRoot extends the tree of oldSize leaves whose root is oldRoot (RFC
// 9162 §2.1.4), by the proof's hashes. The error says which part
// disagrees; it is nil only when the proof leads to both roots.
func VerifyConsistency(oldSize, newSize uint64, hashes [][]byte, oldRoot, newRoot []byte) error {
	if len(oldRoot) != HashSize || len(newRoot) != HashSize {
		return errors.New("the roots must be 32-byte hashes")
	}
	if oldSize == 0 || oldSize > newSize {
		return fmt.Errorf("a consistency proof leads from a tree of 1 to %d leaves, not %d", newSize, oldSize)
	}
	if len(hashes) > MaxConsistency {
		return fmt.Errorf("consistency proof of %d hashes, more than the %d a tree can need", len(hashes), MaxConsistency)
	}
	for i, h := range hashes {
		if len(h) != HashSize {
			return fmt.Errorf("consistency proof hash %d is %d bytes, not %d", i, len(h), HashSize)
		}
	}
	err := proof.VerifyConsistency(rfc6962.DefaultHasher, oldSize, newSize, hashes, oldRoot, newRoot)
	var mismatch proof.RootMismatchError
	if errors.As(err, &mismatch) {
		return fmt.Errorf("the proof leads to root %x, not %x", mismatch.CalculatedRoot, mismatch.ExpectedRoot)
	}
	return err
}

// Status is what became of a checkpoint's signature.
type Status int

const (
	Verified   Status = iota // signed by a key of the key files
	BadSig                   // a signature by a known key that does not verify
	UnknownKey               // signed by no key of the key files
)

// Checkpoint is one signed tree head of a log: its origin line, size,
// root, and who signed it.
type Checkpoint struct {
	Origin string
	Size   uint64
	Root   []byte
	Status Status
	Signer string // the note's signature name, when Verified
}

// Checkpoints are the tree heads given out of band, by origin.
type Checkpoints struct {
	byOrigin map[string][]Checkpoint
}

// Add records cp.
func (cs *Checkpoints) Add(cp Checkpoint) {
	if cs.byOrigin == nil {
		cs.byOrigin = map[string][]Checkpoint{}
	}
	cs.byOrigin[cp.Origin] = append(cs.byOrigin[cp.Origin], cp)
}

// Len is the number of checkpoints recorded.
func (cs *Checkpoints) Len() int {
	n := 0
	if cs != nil {
		for _, l := range cs.byOrigin {
			n += len(l)
		}
	}
	return n
}

// Outcome is a proof judged against the checkpoints of its log.
type Outcome int

const (
	Included   Outcome = iota // the path leads to a root the log signed for that size
	Refuted                   // the path fails, or the log signed another root, or its checkpoint is forged
	Unverified                // no verified checkpoint of the log at the proof's size
)

// Judge checks a proof that leaf is at index of log origin's tree of size
// leaves, by path, and that root, the root the proof names, is the one the
// log signed for that size. The text says what was found, for a note.
func (cs *Checkpoints) Judge(origin string, leaf []byte, index, size uint64, path [][]byte, root []byte) (Outcome, string) {
	where := "index " + strconv.FormatUint(index, 10) + " of " + strconv.FormatUint(size, 10) + " in log " + strconv.Quote(origin)
	if err := VerifyInclusion(leaf, index, size, path, root); err != nil {
		return Refuted, "the inclusion proof at " + where + " does not verify: " + err.Error()
	}
	var all []Checkpoint
	if cs != nil {
		all = cs.byOrigin[origin]
	}
	var sizes []uint64
	forged, unknown := false, false
	for _, cp := range all {
		switch cp.Status {
		case Verified:
			if cp.Size == size {
				if !bytes.Equal(cp.Root, root) {
					return Refuted, "log " + strconv.Quote(origin) + "'s checkpoint of size " + strconv.FormatUint(size, 10) + ", signed by " + cp.Signer + ", has another root than the proof's"
				}
				return Included, "included at " + where + ", checkpoint signed by " + cp.Signer
			}
			sizes = append(sizes, cp.Size)
		case BadSig:
			forged = true
		case UnknownKey:
			unknown = true
		}
	}
	switch {
	case len(sizes) > 0:
		slices.Sort(sizes)
		return Unverified, "the proof at " + where + " leads to its root, but the log's verified checkpoints are of other sizes (" + joinSizes(sizes) + "): inclusion not established"
	case forged:
		return Refuted, "the checkpoint given for log " + strconv.Quote(origin) + " does not verify"
	case unknown:
		return Unverified, "the proof at " + where + " leads to its root, but the log's checkpoint is signed by no key of the key files: inclusion not established"
	}
	return Unverified, "the proof at " + where + " leads to its root, but no checkpoint of the log was given (--checkpoints): inclusion not established"
}

func joinSizes(s []uint64) string {
	var b []byte
	for i, n := range s {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, n, 10)
	}
	return string(b)
}

// RootFromInclusion returns the root that the audit path leads to from
// leaf at index of a tree of size leaves: what a COSE receipt (RFC 9942),
// whose payload is detached, signs.
func RootFromInclusion(leaf []byte, index, size uint64, path [][]byte) ([]byte, error) {
	if err := checkPath(leaf, path); err != nil {
		return nil, err
	}
	return proof.RootFromInclusionProof(rfc6962.DefaultHasher, index, size, leaf, path)
}

// checkPath refuses a leaf or an audit path of the wrong shape before
// the merkle module walks it: a hash of another size, or a path longer
// than any tree needs.
func checkPath(leaf []byte, path [][]byte) error {
	if len(leaf) != HashSize {
		return errors.New("the leaf must be a 32-byte hash")
	}
	if len(path) > MaxPath {
		return fmt.Errorf("audit path of %d hashes, more than the %d a tree can need", len(path), MaxPath)
	}
	for i, h := range path {
		if len(h) != HashSize {
			return fmt.Errorf("audit path hash %d is %d bytes, not %d", i, len(h), HashSize)
		}
	}
	return nil
}
