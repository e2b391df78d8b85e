package verify

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/tlog"
)

// WithLogCheckpoints gives transparency logs' checkpoints (C2SP signed
// notes, the text of a {"checkpoint": ...} line) that inclusion proofs are
// judged against. Each is opened with the Verifier's key directory: one
// that does not verify refutes the proofs of its log, one signed by no key
// of the directory establishes nothing. A note whose origin names a
// receipt chain (see the c2sp-checkpoint format) is not a log's, and one
// that is no checkpoint at all is malformed: both are left out here, and
// verified as a receipt line each is judged on its own.
func WithLogCheckpoints(notes ...string) Option {
	return func(v *Verifier) error {
		for _, text := range notes {
			origin, size, root, err := parseCheckpointBody(text)
			if err != nil || isChainOrigin(origin) {
				continue
			}
			status, signer := openCheckpoint(v, text)
			if v.logs == nil {
				v.logs = &tlog.Checkpoints{}
			}
			v.logs.Add(tlog.Checkpoint{Origin: origin, Size: size, Root: root, Status: status, Signer: signer})
		}
		return nil
	}
}

// isChainOrigin reports whether a checkpoint's origin names a receipt
// chain (<format>/<chain id> of a format checkpoints may name) rather
// than a transparency log.
func isChainOrigin(origin string) bool {
	f, _, _ := strings.Cut(origin, "/")
	_, ok := checkpointFormats[f]
	return ok
}

// openCheckpoint verifies a note's signatures with v's key directory.
func openCheckpoint(v *Verifier, text string) (tlog.Status, string) {
	vs := &checkpointVerifiers{dir: v.keys}
	n, err := note.Open([]byte(text), vs)
	var invalid *note.InvalidSignatureError
	switch {
	case err == nil:
		return tlog.Verified, n.Sigs[0].Name
	case errors.As(err, &invalid):
		return tlog.BadSig, ""
	}
	return tlog.UnknownKey, ""
}

// aerfInclusion judges an AERF receipt's log_inclusion_proof (SPEC.md §15,
// schemas/aerf-v0.2.json): an RFC 9162 audit path from the leaf hash of
// the signed payload, msg, to sth.root_hash, and that root against the
// checkpoint of size tree_size its log (log_id, the checkpoint's origin)
// signed. The proof is outside the issuer's signature, so it decides the
// anchors axis alone: FAIL when it is refuted, PASS only against a
// verified checkpoint, not run otherwise. sth_signature is not checked:
// the checkpoint, signed by a key of the key files, stands for it.
func (c *check) aerfInclusion(msg []byte) {
	p := c.doc.Get("log_inclusion_proof")
	if p == nil {
		c.notRun(AxisAnchors, "no log_inclusion_proof")
		return
	}
	bad := func(why string) { c.fail(AxisAnchors, ReasonBadInclusionProof, "log_inclusion_proof: "+why) }
	if p.Kind != canon.Object {
		bad("must be an object, not " + p.Kind.String())
		return
	}
	logID := str(p, "log_id")
	if logID == "" {
		bad("log_id must be a non-empty string")
		return
	}
	leaf, err := hexHash(p, "leaf_hash")
	if err != nil {
		bad(err.Error())
		return
	}
	if want := tlog.LeafHash(msg); !bytes.Equal(leaf, want) {
		bad("leaf_hash is not the RFC 6962 leaf hash of the signed payload, " + hex.EncodeToString(want))
		return
	}
	if p.Get("leaf_index") == nil {
		c.notRun(AxisAnchors, "log_inclusion_proof has no leaf_index: the proof cannot be checked")
		return
	}
	index, ok1 := uintMember(p, "leaf_index")
	size, ok2 := uintMember(p, "tree_size")
	sth := p.Get("sth")
	sthSize, ok3 := uintMember(sth, "tree_size")
	if !ok1 || !ok2 || !ok3 || size == 0 {
		bad("leaf_index, tree_size and sth.tree_size must be integers, the sizes at least 1")
		return
	}
	if sthSize != size {
		bad("tree_size " + strconv.FormatUint(size, 10) + " is not sth.tree_size " + strconv.FormatUint(sthSize, 10))
		return
	}
	root, err := hexHash(sth, "root_hash")
	if err != nil {
		bad("sth." + err.Error())
		return
	}
	ap := p.Get("audit_path")
	if ap == nil || ap.Kind != canon.Array || len(ap.Items) > tlog.MaxPath {
		bad("audit_path must be a list of at most " + itoa(tlog.MaxPath) + " hashes")
		return
	}
	path := make([][]byte, len(ap.Items))
	for i := range ap.Items {
		it := &ap.Items[i]
		h, err := hex.DecodeString(it.Text)
		if it.Kind != canon.String || err != nil || len(h) != tlog.HashSize {
			bad("audit_path[" + itoa(i) + "] is not 64 hex digits")
			return
		}
		path[i] = h
	}
	switch outcome, text := c.v.logs.Judge(logID, leaf, index, size, path, root); outcome {
	case tlog.Included:
		c.pass(AxisAnchors, text)
	case tlog.Refuted:
		bad(text)
	default:
		c.notRun(AxisAnchors, text)
	}
}

// hexHash reads a member holding a 32-byte hash as hex.
func hexHash(doc *canon.Value, name string) ([]byte, error) {
	v := doc.Get(name)
	if v == nil || v.Kind != canon.String {
		return nil, errors.New(name + " must be a string of 64 hex digits")
	}
	h, err := hex.DecodeString(v.Text)
	if err != nil || len(h) != tlog.HashSize {
		return nil, errors.New(name + " is not 64 hex digits")
	}
	return h, nil
}

// uintMember reads a non-negative integer member.
func uintMember(doc *canon.Value, name string) (uint64, bool) {
	v := doc.Get(name)
	if v == nil || v.Kind != canon.Number {
		return 0, false
	}
	n, err := strconv.ParseUint(v.Text, 10, 64)
	return n, err == nil
}
