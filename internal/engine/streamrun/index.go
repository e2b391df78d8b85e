package streamrun

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/receiptverify/verify/internal/engine/chainscope"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
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
//
// A receipt is known by its own chain hash, which every chaining format
// computes over at least the bytes its signature covers: a second receipt
// with the same chain hash is the same receipt delivered again (at-least-
// once shipping, an archiver that re-serialises it), not a replay or a
// fork. Beside the sort, the index keeps the first record of each chain
// scope by Order, some 80 bytes per chain, to tell a chain that starts
// before the input from a gap in one.
type index struct {
	entries    *sorter // entryLen records, by (space, key, role, seq)
	judgments  *sorter // judgmentLen records, by (seq, kind)
	priorBatch int
	// scopeFirst is the first receipt of each chain scope in the input:
	// a genesis, else by Order (then record);
	// scopeGiven, the chain scopes of the given predecessors, which count
	// as earlier than the input.
	scopeFirst map[key128]scopeStart
	scopeGiven map[key128]bool
	// scopeArchived holds the chain scopes of which the archive (Prior)
	// holds receipts, as far as they were asked.
	scopeArchived map[key128]bool
}

type key128 [16]byte

// An entry: space (1), key (16), role (1), order (24), seq (8, big-endian),
// scope (16), own (16): the receipt's own chain hash, zero without one.
// The entries of receipts that count carry the receipt's order
// (IndexEntry.Order), so that the first use of a nonce, the first receipt
// to name a predecessor and the first of the receipts sharing a chain hash
// are the earliest by what the receipts carry, whatever order the files
// were read in; so do a claim's, which sort after them by role and are
// compared with the first receipt of their chain scope (judgeClaims); the
// entries of given predecessors carry zeros.
const entryLen = 1 + 16 + 1 + OrderLen + 8 + 16 + 16

const (
	spaceChain byte = 0
	spaceNonce byte = 1

	// Roles sort predecessor owners first, then the input's owners by
	// record, then the receipts naming the key: the first owner of a chain
	// hash fixes its scope, as the given predecessors come before the input.
	roleGivenOwner byte = 0
	roleOwner      byte = 1
	roleNamer      byte = 2
	// roleClaimNamer: a claim (IndexEntry.Claim) naming the key, judged
	// after the receipts that count and counting for none of them.
	roleClaimNamer byte = 3
)

// A judgment: seq (8, big-endian), kind (1), outcome (1), first (8): the
// record that named the link or used the nonce first.
const judgmentLen = 18

const (
	kindChain    byte = 0
	kindNonce    byte = 1
	kindDelivery byte = 2
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
	// chainOutside: the link names a receipt absent from the input (and
	// the archive), and no earlier receipt of its chain is in the input:
	// the chain starts before the input and is not checked.
	chainOutside
	// nonceDuplicate: the nonce's earlier use is this same receipt,
	// delivered before; noncePriorDuplicate, one loaded earlier.
	nonceDuplicate
	noncePriorDuplicate
	// deliveryDuplicate: the receipt is one the input holds earlier
	// (first); deliveryPriorDuplicate, one the archive holds.
	deliveryDuplicate
	deliveryPriorDuplicate
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
		entries:       newSorter(entryLen, cmp.Or(lim.entries, defaultEntriesInMemory), dir),
		judgments:     newSorter(judgmentLen, cmp.Or(lim.judgments, defaultJudgmentsInMemory), dir),
		priorBatch:    cmp.Or(lim.priorBatch, defaultPriorBatch),
		scopeFirst:    map[key128]scopeStart{},
		scopeGiven:    map[key128]bool{},
		scopeArchived: map[key128]bool{},
	}
}

func (x *index) close() {
	x.entries.close()
	x.judgments.close()
}

// scopeStart is the first receipt of a chain scope in the input by Order
// (then record), and its issue time when it has one: of a chain's
// receipts in the input, only it may name a predecessor from before the
// input, whatever order the files were read in.
type scopeStart struct {
	seq       uint64
	order     Order
	issued    int64
	hasIssued bool
	genesis   bool   // it names no predecessor: the chain begins in the input
	own       key128 // its chain hash, zero without one
}

// before says whether the scope's first receipt stands before the receipt
// (record seq, order o), which names a predecessor: a link from it to a
// predecessor nobody holds is then a gap in the chain, not its start
// before the input. A genesis stands before every receipt of its chain,
// whatever their issue times (receipts of one second order by line hash).
func (s scopeStart) before(seq uint64, o Order) bool {
	return s.genesis || s.order.Before(o) || s.order == o && s.seq < seq
}

// precedes says whether s rather than t is its scope's first receipt: a
// genesis before a receipt that names a predecessor, then by Order, then
// record.
func (s scopeStart) precedes(t scopeStart) bool {
	if s.genesis != t.genesis {
		return s.genesis
	}
	return s.order.Before(t.order) || s.order == t.order && s.seq < t.seq
}

func trunc(h *[32]byte) key128 { return key128(h[:16]) }

func hashKey(s string) key128 {
	sum := sha256.Sum256([]byte(s))
	return trunc(&sum)
}

// Offsets of an entry's fields after its role.
const (
	entryOrder = 18
	entrySeq   = entryOrder + OrderLen
	entryScope = entrySeq + 8
	entryOwn   = entryScope + 16
)

func (x *index) addEntry(space byte, key key128, role byte, order Order, seq uint64, scope, own key128) error {
	var e [entryLen]byte
	e[0] = space
	copy(e[1:17], key[:])
	e[17] = role
	copy(e[entryOrder:entrySeq], order[:])
	binary.BigEndian.PutUint64(e[entrySeq:entryScope], seq)
	copy(e[entryScope:entryOwn], scope[:])
	copy(e[entryOwn:entryLen], own[:])
	return x.entries.add(e[:])
}

// add records one receipt, in input order; receipts given as predecessors
// (seq at or after predecessorSeq) only own their chain hash. A claim (a
// receipt whose signature did not verify, IndexEntry.Claim) owns its
// chain hash too, which is what a genuine successor's signed link names,
// so that it holds the receipt that successor vouches for; its own link is
// judged (roleClaimNamer), but it begins no chain in the input, is never
// the first to name a predecessor and uses no nonce, so that what it
// claims moves no genuine receipt's judgment.
func (x *index) add(seq uint64, e IndexEntry) error {
	if !e.OK {
		return nil
	}
	given := seq >= predecessorSeq
	scope := hashKey(e.Scope)
	var own key128
	if e.HasHash {
		own = trunc(&e.ChainHash)
		role := roleOwner
		if given {
			role = roleGivenOwner
		}
		var order Order // given predecessors come first whatever their order
		if !given {
			order = e.Order()
		}
		if err := x.addEntry(spaceChain, own, role, order, seq, scope, own); err != nil {
			return err
		}
	}
	if given {
		x.scopeGiven[scope] = true
		return nil
	}
	if e.Claim {
		if e.HasLink {
			return x.addEntry(spaceChain, trunc(&e.Link), roleClaimNamer, e.Order(), seq, scope, own)
		}
		return nil
	}
	if e.HasHash || e.HasLink {
		start := scopeStart{seq, e.Order(), e.Issued, e.HasIssued, !e.HasLink, own}
		if first, ok := x.scopeFirst[scope]; !ok || start.precedes(first) {
			x.scopeFirst[scope] = start
		}
	}
	if e.HasLink {
		if err := x.addEntry(spaceChain, trunc(&e.Link), roleNamer, e.Order(), seq, scope, own); err != nil {
			return err
		}
	}
	if e.NonceKey != "" {
		return x.addEntry(spaceNonce, hashKey(e.NonceKey), roleNamer, e.Order(), seq, key128{}, own)
	}
	return nil
}

// linkGroup is one chain hash of the input: who owns it, who names it.
type linkGroup struct {
	key        key128
	owned      bool
	ownerScope key128
	inputOwner bool   // a receipt of the input has this chain hash
	firstOwner uint64 // the first of them, when inputOwner
	archived   bool   // an archived receipt has it (Prior)
	priorNamed bool   // an archived receipt names it before the input's first namer (Prior)
	// archivedOwn holds the namers' own chain hashes that the archive
	// has, when priorNamed: those namers are archived receipts delivered
	// again.
	archivedOwn map[key128]bool
	namers      []namer // by Order, then input order
	claims      []namer // claims naming it, by Order, then input order
}

type namer struct {
	seq        uint64
	scope, own key128
	order      Order
}

// resolve merges the entries into judgments. prior, if set, is asked about
// every chain hash the input holds or names, in batches.
func (x *index) resolve(ctx context.Context, prior Prior) error {
	rd, err := x.entries.reader()
	if err != nil {
		return err
	}
	var (
		g       *linkGroup
		pending []*linkGroup
		nonce   struct {
			key, own key128
			first    uint64
			seen     bool
		}
		// nonces are the first uses of nonces not yet asked of prior;
		// later uses are replays (or deliveries again) whatever it answers.
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
			if pg.archived && pg.inputOwner {
				if err := x.addJudgment(pg.firstOwner, kindDelivery, deliveryPriorDuplicate, pg.firstOwner); err != nil {
					return err
				}
			}
			if len(pg.namers)+len(pg.claims) > 0 {
				if err := x.judgeLinks(pg); err != nil {
					return err
				}
			}
		}
		pending = pending[:0]
		return nil
	}
	endGroup := func() error {
		done := g
		g = nil
		switch {
		case done == nil:
			return nil
		case prior == nil && len(done.namers)+len(done.claims) > 0:
			return x.judgeLinks(done)
		case prior == nil || (len(done.namers)+len(done.claims) == 0 && !done.inputOwner):
			return nil
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
		role, seq := e[17], binary.BigEndian.Uint64(e[entrySeq:entryScope])
		order, scope, own := Order(e[entryOrder:entrySeq]), key128(e[entryScope:entryOwn]), key128(e[entryOwn:entryLen])
		switch e[0] {
		case spaceChain:
			if g == nil || g.key != key {
				if err := endGroup(); err != nil {
					return err
				}
				g = &linkGroup{key: key}
			}
			switch role {
			case roleNamer:
				g.namers = append(g.namers, namer{seq, scope, own, order})
				continue
			case roleClaimNamer:
				g.claims = append(g.claims, namer{seq, scope, own, order})
				continue
			case roleOwner:
				if g.inputOwner {
					if err := x.addJudgment(seq, kindDelivery, deliveryDuplicate, g.firstOwner); err != nil {
						return err
					}
				} else {
					g.inputOwner, g.firstOwner = true, seq
				}
			}
			if !g.owned {
				g.owned, g.ownerScope = true, scope
			}
		case spaceNonce:
			if err := endGroup(); err != nil {
				return err
			}
			if nonce.seen && nonce.key == key {
				outcome := nonceReplay
				if own != (key128{}) && own == nonce.own {
					outcome = nonceDuplicate
				}
				if err := x.addJudgment(seq, kindNonce, outcome, nonce.first); err != nil {
					return err
				}
				continue
			}
			nonce.key, nonce.own, nonce.first, nonce.seen = key, own, seq, true
			if prior == nil {
				if err := x.addJudgment(seq, kindNonce, nonceUnique, seq); err != nil {
					return err
				}
				continue
			}
			nonces = append(nonces, firstUse{key, own, seq, order})
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
	key, own key128
	seq      uint64
	order    Order
}

// askPriorNonces judges the first use of each nonce: a replay when an
// archived receipt already used it, unless that receipt is this one
// delivered again (the archive holds its chain hash); unique otherwise.
// An archive that knows its receipts' order (PriorOrders) makes the
// input's first use the original when it stands before every archived
// use: the archive then revises those (streamrun does not).
func (x *index) askPriorNonces(ctx context.Context, p Prior, uses []firstUse) error {
	digests := make([]string, len(uses))
	for i, u := range uses {
		digests[i] = hex.EncodeToString(u.key[:])
	}
	used, err := p.Nonces(ctx, digests)
	if err != nil {
		return fmt.Errorf("resolving nonces against the archive: %w", err)
	}
	if po, ok := p.(PriorOrders); ok && len(used) > 0 {
		var asked []string
		for _, d := range digests {
			if used[d] {
				asked = append(asked, d)
			}
		}
		firsts, err := po.NonceFirsts(ctx, asked)
		if err != nil {
			return fmt.Errorf("resolving nonces against the archive: %w", err)
		}
		for i, u := range uses {
			if f, ok := firsts[digests[i]]; ok && u.order.Before(f) {
				used[digests[i]] = false // the archived uses are the replays
			}
		}
	}
	var owns []key128
	for i, u := range uses {
		if used[digests[i]] && u.own != (key128{}) {
			owns = append(owns, u.own)
		}
	}
	archived, err := archivedHashes(ctx, p, owns)
	if err != nil {
		return err
	}
	for i, u := range uses {
		outcome := nonceUnique
		switch {
		case used[digests[i]] && archived[u.own]:
			outcome = noncePriorDuplicate
		case used[digests[i]]:
			outcome = noncePriorReplay
		}
		if err := x.addJudgment(u.seq, kindNonce, outcome, u.seq); err != nil {
			return err
		}
	}
	return nil
}

// archivedHashes returns which of the chain hashes an archived receipt
// has.
func archivedHashes(ctx context.Context, p Prior, hashes []key128) (map[key128]bool, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	prefixes := make([]string, len(hashes))
	for i, h := range hashes {
		prefixes[i] = hex.EncodeToString(h[:])
	}
	known, err := p.Links(ctx, prefixes)
	if err != nil {
		return nil, fmt.Errorf("resolving receipts delivered again against the archive: %w", err)
	}
	out := map[key128]bool{}
	for i, h := range hashes {
		if known[prefixes[i]].Found {
			out[h] = true
		}
	}
	return out, nil
}

// askPrior completes link groups from an earlier archive: predecessors the
// input names but does not hold, hashes an archived receipt already names
// (a fork across loads, unless the namer is that receipt delivered again),
// and receipts of the input the archive holds already. An archive that
// knows its receipts' order (PriorOrders) leaves a hash it names to the
// input when the input's first namer stands before every archived one:
// that namer is then the first, and the archive revises the archived
// namers (streamrun does not).
func (x *index) askPrior(ctx context.Context, p Prior, groups []*linkGroup) error {
	prefixes := make([]string, len(groups))
	for i, g := range groups {
		prefixes[i] = hex.EncodeToString(g.key[:])
	}
	known, err := p.Links(ctx, prefixes)
	if err != nil {
		return fmt.Errorf("resolving links against the archive: %w", err)
	}
	var owns []key128
	for i, g := range groups {
		pl, ok := known[prefixes[i]]
		if !ok {
			continue
		}
		g.archived = pl.Found
		if pl.Found && !g.owned {
			g.owned, g.ownerScope = true, hashKey(pl.Scope)
			if d, err := hex.DecodeString(pl.ScopeDigest); err == nil && len(d) == len(g.ownerScope) {
				g.ownerScope = key128(d)
			}
		}
		if pl.Named {
			g.priorNamed = true
			for _, n := range slices.Concat(g.namers, g.claims) {
				if n.own != (key128{}) {
					owns = append(owns, n.own)
				}
			}
		}
	}
	if err := x.askPriorNamers(ctx, p, groups, prefixes); err != nil {
		return err
	}
	archived, err := archivedHashes(ctx, p, owns)
	if err != nil {
		return err
	}
	for _, g := range groups {
		if g.priorNamed {
			g.archivedOwn = archived
		}
	}
	return x.askPriorScopes(ctx, p, groups)
}

// askPriorNamers clears priorNamed on the groups whose first namer in the
// input stands, in Order, before every receipt of the archive naming the
// same hash, when the archive knows its receipts' order (PriorOrders).
func (x *index) askPriorNamers(ctx context.Context, p Prior, groups []*linkGroup, prefixes []string) error {
	po, ok := p.(PriorOrders)
	if !ok {
		return nil
	}
	var asked []string
	for i, g := range groups {
		if g.priorNamed && len(g.namers) > 0 {
			asked = append(asked, prefixes[i])
		}
	}
	if len(asked) == 0 {
		return nil
	}
	firsts, err := po.NamerFirsts(ctx, asked)
	if err != nil {
		return fmt.Errorf("resolving links against the archive: %w", err)
	}
	for i, g := range groups {
		if f, ok := firsts[prefixes[i]]; ok && g.priorNamed && len(g.namers) > 0 && g.namers[0].order.Before(f) {
			g.priorNamed = false // the archived namers are the forks
		}
	}
	return nil
}

// askPriorScopes asks an archive that knows chain scopes which of those
// whose first receipt in the input names a receipt neither holds it has
// receipts of: their link is a gap, not the start of the input.
func (x *index) askPriorScopes(ctx context.Context, p Prior, groups []*linkGroup) error {
	ps, ok := p.(PriorScopes)
	if !ok {
		return nil
	}
	var qs []ScopeQuery
	asked := map[key128]bool{}
	for _, g := range groups {
		if g.owned {
			continue
		}
		for _, n := range slices.Concat(g.namers, g.claims) {
			if asked[n.scope] || x.scopeGiven[n.scope] || x.scopeArchived[n.scope] {
				continue
			}
			first, in := x.scopeFirst[n.scope]
			if in && first.before(n.seq, n.order) {
				continue
			}
			asked[n.scope] = true
			q := ScopeQuery{Digest: hex.EncodeToString(n.scope[:]), Before: first.issued, HasBefore: first.hasIssued}
			if in {
				q.Order, q.HasOrder = first.order, true
				if first.own != (key128{}) {
					q.Own = hex.EncodeToString(first.own[:])
				}
			}
			qs = append(qs, q)
		}
	}
	if len(qs) == 0 {
		return nil
	}
	held, err := ps.Scopes(ctx, qs)
	if err != nil {
		return fmt.Errorf("resolving chain scopes against the archive: %w", err)
	}
	for scope := range asked {
		if held[hex.EncodeToString(scope[:])] {
			x.scopeArchived[scope] = true
		}
	}
	return nil
}

// judgeLinks judges every receipt naming one chain hash. A namer that is
// the first namer delivered again shares its judgment. The claims naming
// it are judged after, each on its own (judgeClaims).
func (x *index) judgeLinks(g *linkGroup) error {
	if err := x.judgeClaims(g); err != nil {
		return err
	}
	if len(g.namers) == 0 {
		return nil
	}
	first := g.namers[0]
	var firstOutcome byte
	for i, n := range g.namers {
		scopeFirst, inScope := x.scopeFirst[n.scope]
		var outcome byte
		switch {
		case i > 0 && n.own != (key128{}) && n.own == first.own:
			outcome = firstOutcome
		case !g.owned && (x.scopeGiven[n.scope] || x.scopeArchived[n.scope] || inScope && scopeFirst.before(n.seq, n.order)):
			outcome = chainAbsent // a gap: the chain has earlier receipts
		case !g.owned:
			outcome = chainOutside
		case g.ownerScope != n.scope:
			outcome = chainBreak
		case g.priorNamed && !g.archivedOwn[n.own]:
			outcome = chainForkPrior
		case i > 0:
			outcome = chainFork
		default:
			outcome = chainLinked
		}
		if i == 0 {
			firstOutcome = outcome
		}
		if err := x.addJudgment(n.seq, kindChain, outcome, first.seq); err != nil {
			return err
		}
	}
	return nil
}

// judgeClaims judges the link of each claim naming g's chain hash by the
// receipts that count alone: absent, outside, a break or a fork of the
// archive as a receipt that counts would be; a fork when a receipt that
// counts names the same predecessor, whether before or after it (the
// position is taken); linked otherwise. Its first is itself: no claim is
// the first to name anything.
func (x *index) judgeClaims(g *linkGroup) error {
	for _, n := range g.claims {
		scopeFirst, inScope := x.scopeFirst[n.scope]
		var outcome byte
		switch {
		case !g.owned && (x.scopeGiven[n.scope] || x.scopeArchived[n.scope] || inScope && scopeFirst.before(n.seq, n.order)):
			outcome = chainAbsent
		case !g.owned:
			outcome = chainOutside
		case g.ownerScope != n.scope:
			outcome = chainBreak
		case g.priorNamed && !g.archivedOwn[n.own]:
			outcome = chainForkPrior
		case len(g.namers) > 0:
			outcome = chainFork
		default:
			outcome = chainLinked
		}
		if err := x.addJudgment(n.seq, kindChain, outcome, n.seq); err != nil {
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
// judgments. A receipt that is not evidence (a claim) has its link judged
// and is reported as claiming its position (judgeClaim); its nonce is not
// compared.
func judge(res *verify.Result, js []judgment) {
	claim := !res.Evidence()
	prev, _, _ := res.ChainLink()
	for _, j := range js {
		if j.kind == kindDelivery || claim && j.kind == kindNonce {
			continue // noted below, on the axes as judged
		}
		switch j.outcome {

		case chainAbsent:
			setAxis(res, verify.AxisChain, verify.StatusFail, reason.ChainAbsent, "predecessor "+prev+" is absent, after earlier receipts of its chain")
		case chainOutside:
			setAxis(res, verify.AxisChain, verify.StatusSkipped, reason.ChainUnknown, "predecessor "+prev+" is not in the input, nor any earlier receipt of its chain: the chain starts before the input and is not checked ("+outsideHint+")")
		case chainBreak:
			setAxis(res, verify.AxisChain, verify.StatusFail, reason.ChainBreak, "predecessor "+prev+" belongs to another chain (its "+chainscope.What(res.Format)+" differs)")
		case chainForkPrior:
			setAxis(res, verify.AxisChain, verify.StatusFail, reason.ChainFork, "predecessor "+prev+" is already named by a receipt loaded earlier")
		case chainFork:
			note := fmt.Sprintf("predecessor %s is already named by an earlier receipt (record %d)", prev, j.first+1)
			if claim {
				note = "predecessor " + prev + " is named by a receipt whose signature verified"
			}
			setAxis(res, verify.AxisChain, verify.StatusFail, reason.ChainFork, note)
		case chainLinked:
			setAxis(res, verify.AxisChain, verify.StatusPass, "", "links to a receipt in the input or the archive")
		case nonceReplay:
			setAxis(res, verify.AxisNonce, verify.StatusFail, reason.NonceReplay, fmt.Sprintf("nonce already used by an earlier receipt of this issuer (record %d)", j.first+1))
		case noncePriorReplay:
			setAxis(res, verify.AxisNonce, verify.StatusFail, reason.NonceReplay, "nonce already used by a receipt of this issuer loaded earlier")
		case nonceUnique:
			setAxis(res, verify.AxisNonce, verify.StatusPass, "", "unique in this run")
		case nonceDuplicate:
			setAxis(res, verify.AxisNonce, verify.StatusPass, "", fmt.Sprintf("used by this same receipt, delivered before (record %d): not a replay", j.first+1))
		case noncePriorDuplicate:
			setAxis(res, verify.AxisNonce, verify.StatusPass, "", "used by this same receipt, loaded earlier: not a replay")
		}
	}
	if claim {
		judgeClaim(res)
		return
	}
	for _, j := range js {
		switch j.outcome {
		case deliveryDuplicate:
			noteDelivery(res, fmt.Sprintf("the same receipt as record %d, delivered again", j.first+1))
		case deliveryPriorDuplicate:
			noteDelivery(res, "the same receipt as one loaded earlier, delivered again")
		}
	}
}

// outsideHint is how to give the receipts a chain starting before the
// input names.
const outsideHint = "give it with --predecessor, the earlier files, or the audit database"

// noteDelivery adds to the chain axis's note (the nonce axis's, without
// one) that the receipt is one delivered before; the outcome stays.
func noteDelivery(res *verify.Result, note string) {
	for _, name := range []verify.AxisName{verify.AxisChain, verify.AxisNonce} {
		ax, ok := res.Axes.Get(name)
		if !ok || ax.Status == verify.StatusNotRun {
			continue
		}
		if ax.Note != "" {
			note = ax.Note + "; " + note
		}
		setAxis(res, name, ax.Status, ax.Reason, note)
		return
	}
}

// deliveryOf says whether a record's judgments make it a receipt
// delivered again, and (not being one, nor a claim: res is not evidence)
// the first of a chain that starts before the input: what Summary counts.
func deliveryOf(js []judgment, res *verify.Result) (duplicate, outside bool) {
	for _, j := range js {
		switch j.outcome {
		case deliveryDuplicate, deliveryPriorDuplicate:
			duplicate = true
		case chainOutside:
			outside = true
		}
	}
	return duplicate, outside && !duplicate && res != nil && res.Evidence()
}

// Rejudge gives a receipt verified again on its own (with other trust
// material, say) the chain and nonce judgments a run gave it before, read
// back from the reasons it had then. Those judgments rest on chain hashes,
// links, scopes and nonces, which no key, schema or clock changes, so they
// still hold; the notes name no record, as the run is not at hand.
func Rejudge(res *verify.Result, earlier []reason.Reason) {
	e := Index(res)
	if !e.OK {
		return
	}
	var js []judgment
	has := func(r reason.Reason) bool {
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
		case has(reason.ChainAbsent):
			j.outcome = chainAbsent
		case has(reason.ChainBreak):
			j.outcome = chainBreak
		case has(reason.ChainFork):
			j.outcome = chainForkPrior
		}
		js = append(js, j)
	}
	if e.NonceKey != "" {
		j := judgment{kind: kindNonce, outcome: nonceUnique}
		if has(reason.NonceReplay) {
			j.outcome = noncePriorReplay
		}
		js = append(js, j)
	}
	judge(res, js)
}

// setAxis records a judgment of the stream on res and folds its verdict.
func setAxis(res *verify.Result, name verify.AxisName, st verify.Status, reason reason.Reason, note string) {
	res.Judge(name, verify.Axis{Status: st, Reason: reason, Note: note})
}
