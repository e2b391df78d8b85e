package verify

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
	"github.com/receiptverify/verify/verify/tlog"
)

// A chain-head checkpoint: a C2SP signed note (golang.org/x/mod/sumdb/note,
// c2sp.org/signed-note) carried as {"checkpoint": "<note text>"}, whose
// text is a C2SP tlog checkpoint naming a receipt chain's head:
//
//	<format>/<chain id>           the origin: the chain's format and identity
//	<size>                        receipts from the chain's first to its head
//	<base64 head hash>            the head receipt's 32-byte hash
//
// signed by a key of the key directory (Ed25519; the note's key name is
// the key's id). For pipelock-action-v1 the chain id is the signer_key,
// the first receipt has chain_seq 0 (the head's is size-1) and the hash is
// the head receipt's ReceiptHash. For asqav-native the chain id is the
// payload's issuer_id, org_id, agent_id and session_id joined by "/", the
// first receipt has step 0 and the hash is SHA-256 of the head's canonical
// payload (what a successor's previousReceiptHash names). A checkpoint that does not verify is a
// finding like any receipt: FAIL on a bad signature, INCOMPLETE when no
// key of the directory signed it. One that verifies is the evidence
// completeness checks the archive against (Fields.Lifecycle, kind
// checkpoint). An origin that names no such chain is a transparency log's
// checkpoint (<size> its leaves, the hash its RFC 9162 root), which the
// log's inclusion proofs are judged against (WithLogCheckpoints).
var checkpointFormat = format{name: "c2sp-checkpoint", detect: isCheckpoint, check: checkCheckpoint, chain: &chainRule{
	hash: checkpointHash,
	// A checkpoint names a head; it links to nothing.
	link: linkRule{path: []string{"checkpoint_link"}},
	scope: func(_ string, doc *canon.Value) string {
		origin, _, _, err := parseCheckpointBody(str(doc, "checkpoint"))
		if err != nil {
			return scopeKey("c2sp-checkpoint")
		}
		return checkpointScope(origin)
	},
}}

// checkpointFormats are the formats whose chains a checkpoint may name,
// with the members of a chain id and how a head hash is indexed.
var checkpointFormats = map[string]struct {
	parts int
	head  func(hash []byte, seq uint64) string
}{
	pipelockActionFormat.name: {1, func(h []byte, seq uint64) string { return pipelockSeqLink(hex.EncodeToString(h), seq) }},
	asqavNativeFormat.name:    {4, func(h []byte, _ uint64) string { return hex.EncodeToString(h) }},
}

// checkpointScope is the chain scope an origin names: the format's scope
// of the chain id's members, as a receipt of that chain has it.
func checkpointScope(origin string) string {
	f, id, _ := strings.Cut(origin, "/")
	return scopeKey(f, strings.Split(id, "/")...)
}

func isCheckpoint(doc *canon.Value) bool {
	v := doc.Get("checkpoint")
	n := 1
	if doc.Get("consistency") != nil {
		n = 2
	}
	return v != nil && v.Kind == canon.String && len(doc.Members) == n
}

// checkpointHash is the checkpoint's own place in the index: SHA-256 of
// its text, which no receipt's link names.
func checkpointHash(doc *canon.Value) (string, error) {
	sum := sha256.Sum256([]byte("c2sp-checkpoint\x00" + str(doc, "checkpoint")))
	return hex.EncodeToString(sum[:]), nil
}

// parseCheckpointBody reads the first three lines of a checkpoint's text.
func parseCheckpointBody(text string) (origin string, size uint64, hash []byte, err error) {
	lines := strings.SplitN(text, "\n", 4)
	if len(lines) < 4 {
		return "", 0, nil, errors.New("a checkpoint is an origin, a size and a hash, one a line, then its signatures")
	}
	origin = lines[0]
	if size, err = strconv.ParseUint(lines[1], 10, 64); err != nil || size == 0 {
		return "", 0, nil, errors.New("size " + quoteShort(lines[1]) + " is not a positive decimal count")
	}
	if hash, err = base64.StdEncoding.DecodeString(lines[2]); err != nil || len(hash) != sha256.Size {
		return "", 0, nil, errors.New("hash " + quoteShort(lines[2]) + " is not 32 bytes of base64")
	}
	return origin, size, hash, nil
}

func checkCheckpoint(c *check) {
	text := str(c.doc, "checkpoint")
	origin, size, hash, err := parseCheckpointBody(text)
	if err != nil {
		c.fail(AxisStructure, ReasonMalformed, err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "no checkpoint to check")
		return
	}
	f, id, _ := strings.Cut(origin, "/")
	cf, chain := checkpointFormats[f]
	seq := int64(size - 1)
	if chain {
		head := ""
		if id == "" || strings.Count(id, "/") != cf.parts-1 {
			names := slices.Sorted(maps.Keys(checkpointFormats))
			c.fail(AxisStructure, ReasonBadField, "origin "+quoteShort(origin)+" must be <format>/<chain id>, the format one of "+strings.Join(names, ", ")+
				" (an asqav-native chain id is issuer_id/org_id/agent_id/session_id)")
		} else {
			head = cf.head(hash, size-1)
		}
		c.res.Fields.Step = &seq
		c.res.Fields.ActionType = "checkpoint"
		c.res.Fields.Lifecycle = &Lifecycle{Kind: LifecycleCheckpoint, FinalSeq: seq, Head: head}
	} else {
		// A transparency log's tree head: the inclusion proofs of
		// that log are judged against it (WithLogCheckpoints), and the
		// completeness query holds it to the log's other checkpoints.
		c.res.Fields.ActionType = "log_checkpoint"
		c.res.Fields.Lifecycle = &Lifecycle{Kind: LifecycleLogCheckpoint, FinalSeq: int64(size), Head: hex.EncodeToString(hash)}
	}

	vs := &checkpointVerifiers{dir: c.v.keys}
	n, err := note.Open([]byte(text), vs)
	var unverified *note.UnverifiedNoteError
	var invalid *note.InvalidSignatureError
	switch {
	case err == nil:
		key := vs.used[n.Sigs[0].Name]
		c.pass(AxisIssuerKey, key.Label())
		c.res.Fields.KeyID = key.KID
		c.res.Fields.IssuerID = key.KID
		c.keyStatus(key)
		c.pass(AxisSignature, "C2SP signed note, Ed25519, by "+n.Sigs[0].Name)
	case errors.As(err, &invalid):
		c.fail(AxisSignature, ReasonBadSignature, err.Error())
	case errors.As(err, &unverified):
		c.resolveFailed(errors.New("no signature of the note is by a key of the directory"))
	default:
		c.fail(AxisStructure, ReasonMalformed, "not a signed note: "+err.Error())
		c.skip(AxisSignature, ReasonUncheckable, "not a signed note")
	}
	c.notRun(AxisIssuerBind, "a checkpoint names its signer only by the key's name")
	c.checkConsistency(size, hash, err == nil)
	c.unlinked = "a checkpoint names its chain's head, sequence " + strconv.FormatInt(seq, 10) + "; it links to nothing"
	if !chain {
		c.unlinked = "a transparency log's checkpoint of " + strconv.FormatUint(size, 10) + " leaves; it links to nothing"
	}
}

// checkpointVerifiers finds a note's signers in the key directory: an
// Ed25519 key whose id is the signature's name and whose C2SP key hash
// (SHA-256 of name, newline, 0x01 and the key, first four bytes) matches.
type checkpointVerifiers struct {
	dir  *keys.Directory
	used map[string]*keys.Key
}

func (vs *checkpointVerifiers) Verifier(name string, hash uint32) (note.Verifier, error) {
	k, err := vs.dir.ByID(name)
	if err != nil || k.Public == nil || k.Alg != sigalg.Ed25519 {
		return nil, &note.UnknownVerifierError{Name: name, KeyHash: hash}
	}
	pub := k.Public.Bytes()
	h := sha256.Sum256(append([]byte(name+"\n\x01"), pub...))
	if binary.BigEndian.Uint32(h[:4]) != hash {
		return nil, &note.UnknownVerifierError{Name: name, KeyHash: hash}
	}
	if vs.used == nil {
		vs.used = map[string]*keys.Key{}
	}
	vs.used[name] = k
	return checkpointVerifier{name: name, hash: hash, pub: pub}, nil
}

type checkpointVerifier struct {
	name string
	hash uint32
	pub  ed25519.PublicKey
}

func (v checkpointVerifier) Name() string    { return v.name }
func (v checkpointVerifier) KeyHash() uint32 { return v.hash }
func (v checkpointVerifier) Verify(msg, sig []byte) bool {
	return len(sig) == ed25519.SignatureSize && ed25519.Verify(v.pub, msg, sig)
}

// checkConsistency judges a log checkpoint's consistency proof (RFC 9162
// §2.1.4), the line's "consistency" member:
//
//	{"old_size": <n>, "old_root": "<base64>", "proof": ["<base64>", ...]}
//
// that the tree of size leaves whose root is hash, the checkpoint's,
// extends the tree of old_size leaves whose root is old_root. The proof is
// outside the note's signature, so it decides the anchors axis alone: PASS
// when it verifies, FAIL (bad_consistency_proof) when it does not, not run
// without one. Whether the log signed old_root at old_size is for the
// checkpoints of earlier loads to say (queries/completeness.sql): the
// Lifecycle records the tree head the proof leads from, once the note's
// signature verified (signed), by a key in good standing.
func (c *check) checkConsistency(size uint64, hash []byte, signed bool) {
	p := c.doc.Get("consistency")
	lc := c.res.Fields.Lifecycle
	switch {
	case p == nil && lc != nil && lc.Kind == LifecycleLogCheckpoint:
		c.notRun(AxisAnchors, "no consistency proof: consistency with the log's earlier checkpoints not checked")
		return
	case p == nil:
		return // a chain-head checkpoint: no proof to carry
	}
	bad := func(why string) { c.fail(AxisAnchors, ReasonBadConsistencyProof, "consistency: "+why) }
	if lc == nil || lc.Kind != LifecycleLogCheckpoint {
		bad("a consistency proof is a transparency log's; this checkpoint names a receipt chain")
		return
	}
	if p.Kind != canon.Object {
		bad("must be an object, not " + p.Kind.String())
		return
	}
	old, ok := uintMember(p, "old_size")
	if !ok || old == 0 || old > size {
		bad("old_size must be an integer from 1 to the checkpoint's size, " + strconv.FormatUint(size, 10))
		return
	}
	oldRoot, err := base64Hash(p, "old_root")
	if err != nil {
		bad(err.Error())
		return
	}
	list := p.Get("proof")
	if list == nil || list.Kind != canon.Array || len(list.Items) > tlog.MaxConsistency {
		bad("proof must be a list of at most " + itoa(tlog.MaxConsistency) + " hashes")
		return
	}
	hashes := make([][]byte, len(list.Items))
	for i := range list.Items {
		it := &list.Items[i]
		h, err := base64.StdEncoding.DecodeString(it.Text)
		if it.Kind != canon.String || err != nil || len(h) != tlog.HashSize {
			bad("proof[" + itoa(i) + "] is not 32 bytes of base64")
			return
		}
		hashes[i] = h
	}
	key := c.v.keys
	standing := signed && key != nil
	if standing {
		k, err := key.ByID(c.res.Fields.KeyID)
		standing = err == nil && k.CheckStatus(timeOf(c.res.Fields.IssuedAt), c.v.at) == nil
	}
	from := strconv.FormatUint(old, 10) + " leaves, root " + hex.EncodeToString(oldRoot)
	if err := tlog.VerifyConsistency(old, size, hashes, oldRoot, hash); err != nil {
		if standing {
			lc.ConsistencySize = int64(old)
		}
		bad("the proof from the tree of " + from + " does not verify: " + err.Error())
		return
	}
	if standing {
		lc.ConsistencySize, lc.ConsistencyRoot = int64(old), hex.EncodeToString(oldRoot)
	}
	c.pass(AxisAnchors, "consistent with the tree of "+from)
}

// base64Hash reads a member holding a 32-byte hash as standard base64,
// the encoding of a checkpoint's root.
func base64Hash(doc *canon.Value, name string) ([]byte, error) {
	v := doc.Get(name)
	if v == nil || v.Kind != canon.String {
		return nil, errors.New(name + " must be a string of base64")
	}
	h, err := base64.StdEncoding.DecodeString(v.Text)
	if err != nil || len(h) != tlog.HashSize {
		return nil, errors.New(name + " is not 32 bytes of base64")
	}
	return h, nil
}
