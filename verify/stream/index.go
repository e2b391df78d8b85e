package stream

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/internal/hook"
)

// index is the first pass's knowledge of the whole input, kept in bounded
// memory however long the input: each receipt adds fixed-size entries to
// an external sort (its chain hash as an owner, the link it names, its
// nonce), and resolve merges them by key into one judgment per link and
// per nonce, sorted again by record, which the second pass reads beside
// the spool.
//
// Hashes are kept by their first 128 bits (as scopes are): finding two
// different receipts' hashes, links or nonces that agree there takes about
// 2^64 work, and a second preimage of a given one 2^128.
type index struct {
	entries    *sorter // entryLen records, by (space, key, role, seq)
	judgments  *sorter // judgmentLen records, by (seq, kind)
	priorBatch int
}

type key128 [16]byte

// An entry: space (1), key (16), role (1), seq (8, big-endian), scope (16).
const entryLen = 42

const (
	spaceChain byte = 0
	spaceNonce byte = 1

	// Roles sort predecessor owners first, then the input's owners by
	// record, then the receipts naming the key: the first owner of a chain
	// hash fixes its scope, as the given predecessors come before the input.
	roleGivenOwner byte = 0
	roleOwner      byte = 1
	roleNamer      byte = 2
)

// A judgment: seq (8, big-endian), kind (1), outcome (1), first (8): the
// record that named the link or used the nonce first.
const judgmentLen = 18

const (
	kindChain byte = 0
	kindNonce byte = 1
)

// Outcomes of a judgment.
const (
	chainLinked byte = iota
	chainAbsent
	chainBreak
	chainForkPrior
	chainFork
	nonceUnique
	nonceReplay
	noncePriorReplay
)

// Records held before a run of the external sort goes to disk: 16 MiB of
// each kind, their sort keys included.
const (
	defaultEntriesInMemory   = 16 << 20 / (entryLen + sortKeyLen)
	defaultJudgmentsInMemory = 16 << 20 / (judgmentLen + sortKeyLen)
	defaultPriorBatch        = 4096 // named hashes asked of the archive at once
)

// indexLimits bound the index's memory; tests lower them so that small
// inputs go through the runs on disk and the batched archive questions.
type indexLimits struct {
	entries, judgments, priorBatch int
}

func newIndex(dir string, lim indexLimits) *index {
	return &index{
		entries:    newSorter(entryLen, cmp.Or(lim.entries, defaultEntriesInMemory), dir),
		judgments:  newSorter(judgmentLen, cmp.Or(lim.judgments, defaultJudgmentsInMemory), dir),
		priorBatch: cmp.Or(lim.priorBatch, defaultPriorBatch),
	}
}

func (x *index) close() {
	x.entries.close()
	x.judgments.close()
}

func trunc(h *[32]byte) key128 { return key128(h[:16]) }

func hashKey(s string) key128 {
	sum := sha256.Sum256([]byte(s))
	return trunc(&sum)
}

func (x *index) addEntry(space byte, key key128, role byte, seq uint64, scope key128) error {
	var e [entryLen]byte
	e[0] = space
	copy(e[1:17], key[:])
	e[17] = role
	binary.BigEndian.PutUint64(e[18:26], seq)
	copy(e[26:42], scope[:])
	return x.entries.add(e[:])
}

// add records one receipt, in input order; receipts given as predecessors
// (seq at or after predecessorSeq) only own their chain hash.
func (x *index) add(seq uint64, e hook.IndexEntry) error {
	if !e.OK {
		return nil
	}
	given := seq >= predecessorSeq
	scope := hashKey(e.Scope)
	if e.HasHash {
		role := roleOwner
		if given {
			role = roleGivenOwner
		}
		if err := x.addEntry(spaceChain, trunc(&e.ChainHash), role, seq, scope); err != nil {
			return err
		}
	}
	if given {
		return nil
	}
	if e.HasLink {
		if err := x.addEntry(spaceChain, trunc(&e.Link), roleNamer, seq, scope); err != nil {
			return err
		}
	}
	if e.NonceKey != "" {
		return x.addEntry(spaceNonce, hashKey(e.NonceKey), roleNamer, seq, key128{})
	}
	return nil
}

// linkGroup is one chain hash the input names: who owns it, who names it.
type linkGroup struct {
	key        key128
	owned      bool
	ownerScope key128
	namers     []namer // in input order
}

type namer struct {
	seq   uint64
	scope key128
}

// resolve merges the entries into judgments. prior, if set, is asked about
// every chain hash the input names, in batches.
func (x *index) resolve(ctx context.Context, prior Prior) error {
	rd, err := x.entries.reader()
	if err != nil {
		return err
	}
	var (
		g       *linkGroup
		pending []*linkGroup
		nonce   struct {
			key   key128
			first uint64
			seen  bool
		}
		// nonces are the first uses of nonces not yet asked of prior;
		// later uses are replays whatever it answers.
		nonces []firstUse
	)
	flushNonces := func() error {
		if err := x.askPriorNonces(ctx, prior, nonces); err != nil {
			return err
		}
		nonces = nonces[:0]
		return nil
	}
	flushPending := func() error {
		if err := x.askPrior(ctx, prior, pending); err != nil {
			return err
		}
		for _, pg := range pending {
			if err := x.judgeLinks(pg, false); err != nil {
				return err
			}
		}
		pending = pending[:0]
		return nil
	}
	endGroup := func() error {
		if g == nil || len(g.namers) == 0 {
			g = nil
			return nil
		}
		done := g
		g = nil
		if prior == nil {
			return x.judgeLinks(done, false)
		}
		pending = append(pending, done)
		if len(pending) >= x.priorBatch {
			return flushPending()
		}
		return nil
	}
	for {
		e, err := rd.next()
		if err != nil {
			return err
		}
		if e == nil {
			break
		}
		key := key128(e[1:17])
		role, seq, scope := e[17], binary.BigEndian.Uint64(e[18:26]), key128(e[26:42])
		switch e[0] {
		case spaceChain:
			if g == nil || g.key != key {
				if err := endGroup(); err != nil {
					return err
				}
				g = &linkGroup{key: key}
			}
			if role == roleNamer {
				g.namers = append(g.namers, namer{seq, scope})
			} else if !g.owned {
				g.owned, g.ownerScope = true, scope
			}
		case spaceNonce:
			if err := endGroup(); err != nil {
				return err
			}
			if nonce.seen && nonce.key == key {
				if err := x.addJudgment(seq, kindNonce, nonceReplay, nonce.first); err != nil {
					return err
				}
				continue
			}
			nonce.key, nonce.first, nonce.seen = key, seq, true
			if prior == nil {
				if err := x.addJudgment(seq, kindNonce, nonceUnique, seq); err != nil {
					return err
				}
				continue
			}
			nonces = append(nonces, firstUse{key, seq})
			if len(nonces) >= x.priorBatch {
				if err := flushNonces(); err != nil {
					return err
				}
			}
		}
	}
	if err := endGroup(); err != nil {
		return err
	}
	if len(nonces) > 0 {
		if err := flushNonces(); err != nil {
			return err
		}
	}
	if len(pending) > 0 {
		return flushPending()
	}
	return nil
}

// firstUse is the first receipt of the input to use one nonce.
type firstUse struct {
	key key128
	seq uint64
}

// askPriorNonces judges the first use of each nonce: a replay when an
// archived receipt already used it, unique otherwise.
func (x *index) askPriorNonces(ctx context.Context, p Prior, uses []firstUse) error {
	digests := make([]string, len(uses))
	for i, u := range uses {
		digests[i] = hex.EncodeToString(u.key[:])
	}
	used, err := p.Nonces(ctx, digests)
	if err != nil {
		return fmt.Errorf("resolving nonces against the archive: %w", err)
	}
	for i, u := range uses {
		outcome := nonceUnique
		if used[digests[i]] {
			outcome = noncePriorReplay
		}
		if err := x.addJudgment(u.seq, kindNonce, outcome, u.seq); err != nil {
			return err
		}
	}
	return nil
}

// askPrior completes link groups from an earlier archive: predecessors the
// input names but does not hold, and hashes an archived receipt already
// names (a fork across loads).
func (x *index) askPrior(ctx context.Context, p Prior, groups []*linkGroup) error {
	prefixes := make([]string, len(groups))
	for i, g := range groups {
		prefixes[i] = hex.EncodeToString(g.key[:])
	}
	known, err := p.Links(ctx, prefixes)
	if err != nil {
		return fmt.Errorf("resolving links against the archive: %w", err)
	}
	for i, g := range groups {
		pl, ok := known[prefixes[i]]
		if !ok {
			continue
		}
		if pl.Found && !g.owned {
			g.owned, g.ownerScope = true, hashKey(pl.Scope)
		}
		if pl.Named {
			if err := x.judgeLinks(g, true); err != nil {
				return err
			}
			g.namers = nil // judged
		}
	}
	return nil
}

// judgeLinks judges every receipt naming one chain hash.
func (x *index) judgeLinks(g *linkGroup, priorNamed bool) error {
	for _, n := range g.namers {
		outcome := chainLinked
		switch {
		case !g.owned:
			outcome = chainAbsent
		case g.ownerScope != n.scope:
			outcome = chainBreak
		case priorNamed:
			outcome = chainForkPrior
		case n.seq != g.namers[0].seq:
			outcome = chainFork
		}
		if err := x.addJudgment(n.seq, kindChain, outcome, g.namers[0].seq); err != nil {
			return err
		}
	}
	return nil
}

func (x *index) addJudgment(seq uint64, kind, outcome byte, first uint64) error {
	var j [judgmentLen]byte
	binary.BigEndian.PutUint64(j[0:8], seq)
	j[8], j[9] = kind, outcome
	binary.BigEndian.PutUint64(j[10:18], first)
	return x.judgments.add(j[:])
}

// judgment is one decoded judgment of a record.
type judgment struct {
	kind, outcome byte
	first         uint64
}

// judgmentReader hands each record its judgments, records in input order.
type judgmentReader struct {
	rd *mergeReader
	// next is the first judgment not yet handed out (nil at the end),
	// valid until the following advance.
	next []byte
}

func (x *index) judgmentReader() (*judgmentReader, error) {
	rd, err := x.judgments.reader()
	if err != nil {
		return nil, err
	}
	jr := &judgmentReader{rd: rd}
	return jr, jr.advance()
}

func (jr *judgmentReader) advance() error {
	var err error
	jr.next, err = jr.rd.next()
	return err
}

// of returns the judgments of record seq; called with seq increasing.
func (jr *judgmentReader) of(seq uint64) ([]judgment, error) {
	var out []judgment
	for jr.next != nil && binary.BigEndian.Uint64(jr.next) <= seq {
		if binary.BigEndian.Uint64(jr.next) == seq {
			out = append(out, judgment{kind: jr.next[8], outcome: jr.next[9], first: binary.BigEndian.Uint64(jr.next[10:])})
		}
		if err := jr.advance(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// judge sets the chain and nonce axes of a verified receipt from its
// judgments.
func judge(res *verify.Result, js []judgment) {
	prev, _, _ := res.ChainLink()
	for _, j := range js {
		switch j.outcome {
		case chainAbsent:
			setAxis(res, verify.AxisChain, verify.StatusFail, verify.ReasonChainAbsent, "predecessor "+prev+" is not in the input")
		case chainBreak:
			setAxis(res, verify.AxisChain, verify.StatusFail, verify.ReasonChainBreak, "predecessor "+prev+" belongs to another chain (its "+hooks.ChainScopeWhat(res.Format)+" differs)")
		case chainForkPrior:
			setAxis(res, verify.AxisChain, verify.StatusFail, verify.ReasonChainFork, "predecessor "+prev+" is already named by a receipt loaded earlier")
		case chainFork:
			setAxis(res, verify.AxisChain, verify.StatusFail, verify.ReasonChainFork, fmt.Sprintf("predecessor %s is already named by an earlier receipt (record %d)", prev, j.first+1))
		case chainLinked:
			setAxis(res, verify.AxisChain, verify.StatusPass, "", "links to a receipt in the input or the archive")
		case nonceReplay:
			setAxis(res, verify.AxisNonce, verify.StatusFail, verify.ReasonNonceReplay, fmt.Sprintf("nonce already used by an earlier receipt of this issuer (record %d)", j.first+1))
		case noncePriorReplay:
			setAxis(res, verify.AxisNonce, verify.StatusFail, verify.ReasonNonceReplay, "nonce already used by a receipt of this issuer loaded earlier")
		case nonceUnique:
			setAxis(res, verify.AxisNonce, verify.StatusPass, "", "unique in this run")
		}
	}
}

// Rejudge gives a receipt verified again on its own (with other trust
// material, say) the chain and nonce judgments a run gave it before, read
// back from the reasons it had then. Those judgments rest on chain hashes,
// links, scopes and nonces, which no key, schema or clock changes, so they
// still hold; the notes name no record, as the run is not at hand.
func Rejudge(res *verify.Result, earlier []verify.Reason) {
	e := hooks.IndexEntry(res)
	if !e.OK {
		return
	}
	var js []judgment
	has := func(r verify.Reason) bool {
		for _, x := range earlier {
			if x == r {
				return true
			}
		}
		return false
	}
	if e.HasLink {
		j := judgment{kind: kindChain, outcome: chainLinked}
		switch {
		case has(verify.ReasonChainAbsent):
			j.outcome = chainAbsent
		case has(verify.ReasonChainBreak):
			j.outcome = chainBreak
		case has(verify.ReasonChainFork):
			j.outcome = chainForkPrior
		}
		js = append(js, j)
	}
	if e.NonceKey != "" {
		j := judgment{kind: kindNonce, outcome: nonceUnique}
		if has(verify.ReasonNonceReplay) {
			j.outcome = noncePriorReplay
		}
		js = append(js, j)
	}
	judge(res, js)
}
