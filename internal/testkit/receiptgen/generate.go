package receiptgen

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
)

// File names in the output.
const (
	FileJWKS      = "keys/jwks.json"
	SchemaDir     = "schemas"
	FileReceipts  = "receipts.jsonl"
	FileReceiptGz = "receipts.jsonl.gz"
	FileTruth     = "truth.jsonl"
)

// chunkSize is how many receipts are built, signed and written at a time.
const chunkSize = 2048

// GenesisHash is the previousReceiptHash of the first receipt of a chain.
const GenesisHash = "0000000000000000000000000000000000000000000000000000000000000000"

// role is what the plan made of a slot.
type role uint8

const (
	roleNone role = iota
	roleTamperedPayload
	roleTamperedSignature
	roleRevoked
	roleBreak // names the tail of another chain
	roleForkExtra
	roleAbsentSucc
	roleReplay
	roleDrift
	// supporting roles: carry no anomaly but must stay as they are
	roleBreakTarget
	roleForkPred
	roleForkFirst
	roleRemoved
	roleNonceSrc
	roleCut // a completeness plant's receipt, signed and left out
)

var roleKind = map[role]Kind{
	roleTamperedPayload: KindTamperedPayload, roleTamperedSignature: KindTamperedSignature,
	roleRevoked: KindRevokedKey, roleBreak: KindChainBreak, roleForkExtra: KindFork,
	roleAbsentSucc: KindAbsent, roleReplay: KindReplayedNonce, roleDrift: KindSchemaDrift,
}

func (r role) anomalous() bool { return r >= roleTamperedPayload && r <= roleDrift }

type session struct {
	idx   int
	id    string
	agent *agent
	slots []*slot // by step
}

type slot struct {
	sess  *session
	step  int
	t     int64 // µs since the Unix epoch
	group int   // sort tie-break: 0 normal, 1 fork extra, 2 revoked agent
	pos   int   // index among the normal slots in time order
	role  role
	prev  *slot // nil: genesis
	other *slot // fork: the first successor; replay: the nonce's source; break: the tail named

	form     form // the format it is written in
	tool     *tool
	actionID string
	nonce    string
	payload  canon.Value
	msg      []byte // canonical payload, the signing input
	hash     string // what a successor names
	decision string
	sig      []byte
	line     int // 1-based line in receipts.jsonl; 0 if removed
	// orig is the chain hash as first signed: hash but for a rewritten
	// chain, whose checkpoint names the original head.
	orig  string
	plant *plant // the completeness plant of its session, if any
}

func (s *slot) tail() bool { return s.step == len(s.sess.slots)-1 && s.group == 0 }

// Generate writes a corpus for cfg to out and returns what it planted.
// The same cfg (whatever Workers) writes the same bytes.
func Generate(cfg Config, out Sink) (*Truth, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	g := &gen{cfg: cfg, r: rand.New(rand.NewPCG(cfg.Seed, 0x6a09e667f3bcc909)),
		mr:        rand.New(rand.NewPCG(cfg.Seed, 0xbb67ae8584caa73b)),
		cr:        rand.New(rand.NewPCG(cfg.Seed, 0x3c6ef372fe94f82b)),
		actionIDs: map[string]bool{}, nonces: map[string]bool{}}
	if g.tb, err = newToolbox(); err != nil {
		return nil, err
	}
	g.start = cfg.Start.UnixMicro()
	g.end = cfg.Start.Add(time.Duration(cfg.Days) * 24 * time.Hour).UnixMicro()
	if err := g.agents(); err != nil {
		return nil, err
	}
	if err := g.plan(); err != nil {
		return nil, err
	}
	return g.write(out)
}

type gen struct {
	cfg        Config
	r          *rand.Rand
	mr         *rand.Rand // the mix's own stream (Mix)
	cr         *rand.Rand // the completeness plants' own stream
	plants     []*plant
	covered    []*session // clean sessions a checkpoint covers
	witness    *witness
	tb         *toolbox
	start, end int64
	orgs       []string
	agentList  []*agent // active agents, then the revoked one
	revoked    *agent
	counts     map[Kind]int
	sessions   []*session
	normal     []*slot // normal slots in time order
	all        []*slot // every slot in file order (removed ones included)
	// mixTampered is how many tampered_signature anomalies go to the mix.
	mixTampered int
	actionIDs   map[string]bool
	nonces      map[string]bool
}

func (g *gen) agents() error {
	for range g.cfg.Orgs {
		g.orgs = append(g.orgs, "org_"+hexN(g.r, 12))
	}
	algs := allot(g.cfg.Agents, g.cfg.Algs)
	g.r.Shuffle(len(algs), func(i, j int) { algs[i], algs[j] = algs[j], algs[i] })
	for i, alg := range algs {
		a, err := newAgent(g.r, alg, fmt.Sprintf("agent-%02d-%s", i+1, hexN(g.r, 6)), g.orgs[i%len(g.orgs)])
		if err != nil {
			return err
		}
		g.agentList = append(g.agentList, a)
	}
	a, err := newAgent(g.r, heaviest(g.cfg.Algs), "agent-revoked-"+hexN(g.r, 6), g.orgs[0])
	if err != nil {
		return err
	}
	a.revoked = true
	g.revoked = a
	g.agentList = append(g.agentList, a)
	return nil
}

// plan lays out sessions and times and assigns the anomaly roles.
func (g *gen) plan() error {
	cfg := g.cfg
	total := int(math.Round(cfg.Rate * float64(cfg.N)))
	g.counts = map[Kind]int{}
	order := slices.Clone(kinds)
	g.r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for i, k := range order {
		g.counts[k] = total / len(kinds)
		if i < total%len(kinds) {
			g.counts[k]++
		}
	}
	g.mixTampered = min(g.counts[KindTamperedSignature], cfg.Mix.forms())
	nM := cfg.N - cfg.Mix.total() - g.counts[KindFork] - g.counts[KindRevokedKey] + g.counts[KindAbsent] - cfg.Completeness*plantLines
	if nM < 0 || (nM == 0 && total > 0) {
		return errors.New("receiptgen: n too small for the anomaly rate and the completeness plants")
	}
	tailsNeeded := g.counts[KindTamperedPayload] + g.counts[KindChainBreak]
	spa := cfg.SessionsPerAgent
	if spa == 0 {
		spa = max(1, int(math.Round(float64(nM)/float64(cfg.Agents*chainTarget))))
		for cfg.Agents*spa < 2*tailsNeeded+2 {
			spa++
		}
	}
	nS := min(cfg.Agents*spa, max(min(nM, 1), nM/2)) // chains of two receipts at least
	if nS < 2*tailsNeeded+1 && tailsNeeded > 0 {
		return fmt.Errorf("receiptgen: %d sessions cannot hold %d tampered tails and chain-break targets; lower the rate or add sessions", nS, tailsNeeded)
	}

	// Session lengths: at least 2 each when possible, the rest by random weight.
	lengths := make([]int, nS)
	base := 1
	if nM >= 2*nS {
		base = 2
	}
	weights := make([]float64, nS)
	cum := 0.0
	for i := range lengths {
		lengths[i] = base
		cum += 0.5 + 2*g.r.Float64()
		weights[i] = cum
	}
	for range nM - base*nS {
		x := g.r.Float64() * cum
		i, _ := slices.BinarySearch(weights, x)
		lengths[min(i, nS-1)]++
	}
	for i, n := range lengths {
		s := &session{idx: i, id: "sess_" + hexN(g.r, 16), agent: g.agentList[i%cfg.Agents]}
		g.sessions = append(g.sessions, s)
		for j, t := range g.times(n) {
			sl := &slot{sess: s, step: j, t: t}
			if j > 0 {
				sl.prev = s.slots[j-1]
			}
			s.slots = append(s.slots, sl)
			g.normal = append(g.normal, sl)
		}
	}
	sortSlots(g.normal)
	for i, s := range g.normal {
		s.pos = i
	}
	if err := g.assign(); err != nil {
		return err
	}

	g.all = slices.Clone(g.normal)
	// The revoked agent: its own sessions of up to 20 receipts, all planted.
	for left := g.counts[KindRevokedKey]; left > 0; {
		n := min(left, 5+g.r.IntN(16))
		left -= n
		s := &session{idx: len(g.sessions), id: "sess_" + hexN(g.r, 16), agent: g.revoked}
		g.sessions = append(g.sessions, s)
		for j, t := range g.times(n) {
			sl := &slot{sess: s, step: j, t: t, group: 2, role: roleRevoked}
			if j > 0 {
				sl.prev = s.slots[j-1]
			}
			s.slots = append(s.slots, sl)
			g.all = append(g.all, sl)
		}
	}
	for _, s := range g.all {
		if s.role == roleForkFirst {
			g.all = append(g.all, g.forkExtra(s))
		}
	}
	if cfg.Completeness > 0 {
		g.witness = newWitness(g.cr)
		g.planCompleteness()
	}
	if err := g.planMix(); err != nil {
		return err
	}
	sortSlots(g.all)
	return nil
}

// times draws n increasing issue times for one session: gaps of 2 s to
// 3 min, the burst placed at random inside the window.
func (g *gen) times(n int) []int64 { return g.timesFrom(g.r, n) }

// timesFrom is times drawn from r.
func (g *gen) timesFrom(r *rand.Rand, n int) []int64 {
	span := g.end - g.start
	gaps := make([]int64, n)
	var L int64
	for i := 1; i < n; i++ {
		gaps[i] = 2_000_000 + r.Int64N(178_000_000)
		L += gaps[i]
	}
	if L > span*9/10 { // squeeze long sessions into the window
		f := float64(span*9/10) / float64(L)
		L = 0
		for i := 1; i < n; i++ {
			gaps[i] = max(2, int64(float64(gaps[i])*f))
			L += gaps[i]
		}
	}
	t := g.start + r.Int64N(max(1, span-L))
	out := make([]int64, n)
	for i := range out {
		t += gaps[i]
		out[i] = t
	}
	return out
}

func sortSlots(s []*slot) {
	slices.SortStableFunc(s, func(a, b *slot) int {
		switch {
		case a.t != b.t:
			return cmp.Compare(a.t, b.t)
		case a.group != b.group:
			return cmp.Compare(a.group, b.group)
		case a.sess.idx != b.sess.idx:
			return cmp.Compare(a.sess.idx, b.sess.idx)
		}
		return cmp.Compare(a.step, b.step)
	})
}

// find picks a random slot of cands satisfying ok: a few random probes,
// then a scan from a random start. nil if none.
func (g *gen) find(cands []*slot, ok func(*slot) bool) *slot {
	if len(cands) == 0 {
		return nil
	}
	for range 32 {
		if s := cands[g.r.IntN(len(cands))]; ok(s) {
			return s
		}
	}
	off := g.r.IntN(len(cands))
	for i := range cands {
		if s := cands[(off+i)%len(cands)]; ok(s) {
			return s
		}
	}
	return nil
}

func free(s *slot) bool { return s.role == roleNone }

// assign gives the anomaly roles to normal slots. Roles never share a
// slot, so each planted receipt carries exactly one anomaly and the
// receipts an anomaly leans on (the tail a break names, the predecessor of
// a fork, the source of a replayed nonce) stay clean.
func (g *gen) assign() error {
	var tails []*slot
	for _, s := range g.normal {
		if s.tail() {
			tails = append(tails, s)
		}
	}
	short := func(k Kind) error {
		return fmt.Errorf("receiptgen: no room to plant %s; lower the rate or raise n", k)
	}
	// chain_break: B names the tail T of another session, T earlier in the file.
	for range g.counts[KindChainBreak] {
		var b *slot
		t := g.find(tails, func(t *slot) bool {
			if !free(t) {
				return false
			}
			b = g.find(g.normal[t.pos+1:], func(b *slot) bool { return free(b) && b.sess != t.sess })
			return b != nil
		})
		if t == nil {
			return short(KindChainBreak)
		}
		t.role, b.role, b.prev, b.other = roleBreakTarget, roleBreak, t, t
	}
	// tampered_payload: only on a tail, since its chain hash changes.
	for range g.counts[KindTamperedPayload] {
		t := g.find(tails, free)
		if t == nil {
			return short(KindTamperedPayload)
		}
		t.role = roleTamperedPayload
	}
	// absent: R (preferably not a genesis) is removed; its one successor S is flagged.
	for range g.counts[KindAbsent] {
		ok := func(r *slot) bool { return free(r) && !r.tail() && free(r.sess.slots[r.step+1]) }
		r := g.find(g.normal, func(r *slot) bool { return r.step > 0 && ok(r) })
		if r == nil {
			r = g.find(g.normal, ok) // short chains: remove a genesis
		}
		if r == nil {
			return short(KindAbsent)
		}
		r.role, r.sess.slots[r.step+1].role = roleRemoved, roleAbsentSucc
	}
	// fork: an extra receipt X names P as P's successor S does, after S.
	for range g.counts[KindFork] {
		s := g.find(g.normal, func(s *slot) bool { return free(s) && s.step > 0 && free(s.prev) })
		if s == nil {
			return short(KindFork)
		}
		s.role, s.prev.role = roleForkFirst, roleForkPred
	}
	// replayed_nonce: Y reuses the nonce of an earlier receipt E of its issuer.
	for range g.counts[KindReplayedNonce] {
		var e *slot
		y := g.find(g.normal, func(y *slot) bool {
			if !free(y) {
				return false
			}
			e = g.find(g.normal[:y.pos], func(e *slot) bool { return free(e) && e.sess.agent.org == y.sess.agent.org })
			return e != nil
		})
		if y == nil {
			return short(KindReplayedNonce)
		}
		y.role, y.other, e.role = roleReplay, e, roleNonceSrc
	}
	for _, k := range []struct {
		kind Kind
		role role
	}{{KindTamperedSignature, roleTamperedSignature}, {KindSchemaDrift, roleDrift}} {
		n := g.counts[k.kind]
		if k.kind == KindTamperedSignature {
			n -= g.mixTampered // planted on the mix's receipts
		}
		for range n {
			s := g.find(g.normal, free)
			if s == nil {
				return short(k.kind)
			}
			s.role = k.role
		}
	}
	return nil
}

// forkExtra makes the second successor of first's predecessor, issued
// between first and first's own successor (or the window's end).
func (g *gen) forkExtra(first *slot) *slot {
	next := min(g.end, first.t+600_000_000)
	if !first.tail() {
		next = first.sess.slots[first.step+1].t
	}
	t := first.t + (next-first.t)/2
	return &slot{sess: first.sess, step: first.step, t: t, group: 1, role: roleForkExtra, prev: first.prev, other: first}
}

func (g *gen) unique(seen map[string]bool, mk func() string) string {
	for {
		if s := mk(); !seen[s] {
			seen[s] = true
			return s
		}
	}
}

// build makes s's payload, its signing input and its chain hash. Slots
// are built in file order, so each predecessor's hash is known when its
// successor is built.
func (g *gen) build(s *slot) {
	if s.form != formAsqav {
		if err := g.buildMix(s); err != nil {
			panic(err) // the generator's own values always canonicalize
		}
		return
	}
	actionType := str("mcp:tool_call")
	a := s.sess.agent
	s.tool = g.tb.pick(g.r, s.role.anomalous())
	s.actionID = g.unique(g.actionIDs, func() string { return "act_" + hexN(g.r, 20) })
	if s.role == roleReplay {
		s.nonce = s.other.nonce
	} else {
		s.nonce = g.unique(g.nonces, func() string { return hexN(g.r, 24) })
	}
	issued := time.UnixMicro(s.t).UTC()
	d := canon.AsqavAt(issued)
	prev := GenesisHash
	if s.prev != nil {
		if s.prev.orig == "" {
			panic("receiptgen: predecessor built after its successor")
		}
		prev = s.prev.orig
	}
	fp := s.tool.fp
	if s.role == roleDrift {
		fp = s.tool.driftFP
	}
	ctx := obj(m("tool", str(s.tool.name)), m("args", args(g.r, s.tool)))
	canonCtx, err := fingerprint.CanonicalContext(d, &ctx)
	if err != nil {
		panic(err) // the generator's own values always canonicalize
	}
	ref, err := canonCtx.Action(&actionType)
	if err != nil {
		panic(err)
	}
	pd := canonCtx.Digest()
	s.decision = "allow"
	if g.r.IntN(10) == 0 {
		s.decision = "deny"
	}
	s.payload = obj(
		m("v", integer(1)),
		m("type", str("protectmcp:decision")),
		m("action_id", str(s.actionID)),
		m("agent_id", str(a.id)),
		m("issuer_id", str(a.org)),
		m("org_id", str(a.org)),
		m("session_id", str(s.sess.id)),
		m("step", integer(s.step)),
		m("action_type", actionType),
		m("tool_name", str(s.tool.name)),
		m("tool_fingerprint", str(fp)),
		m("context", ctx),
		m("action_ref", str(ref)),
		m("payload_digest", obj(m("hash", str(pd.Hash)), m("size", integer(pd.Size)))),
		m("nonce", str(s.nonce)),
		m("issued_at", str(rfc3339Micro(issued))),
		m("expires_at", str(rfc3339Micro(issued.Add(30*24*time.Hour)))),
		m("decision", str(s.decision)),
		m("previousReceiptHash", str(prev)),
	)
	if s.msg, err = d.Append(nil, &s.payload); err != nil {
		panic(err)
	}
	sum := sha256.Sum256(s.msg)
	s.hash = hex.EncodeToString(sum[:])
	s.orig = s.hash
	g.rewrite(s)
}

func rfc3339Micro(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000Z") }

// sign starts signing the chunk's payloads on Workers goroutines and
// returns a function that waits for them. Signatures do not depend on the
// order.
func (g *gen) sign(chunk []*slot) (wait func()) {
	workers := g.cfg.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(workers, max(1, len(chunk))) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(chunk) {
					return
				}
				chunk[i].sig = chunk[i].sess.agent.sign(chunk[i].msg)
			}
		})
	}
	return wg.Wait
}

// write writes the keys and schemas, then builds, signs, tampers (after
// signing) and writes the receipts chunk by chunk, then the truth.
func (g *gen) write(out Sink) (*Truth, error) {
	truth := &Truth{Counts: g.counts}
	put := func(name string, data []byte) error {
		w, err := out.Create(name)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
		truth.Files = append(truth.Files, name)
		return err
	}
	keys, err := jwks(g.agentList, g.cfg.Start)
	if err != nil {
		return nil, err
	}
	if err := put(FileJWKS, keys); err != nil {
		return nil, err
	}
	if g.witness != nil {
		if err := put(FileWitness, g.witness.keyFile()); err != nil {
			return nil, err
		}
	}
	for _, s := range serverSchemas {
		if err := put(SchemaDir+"/"+s.name+".json", g.tb.files[s.name]); err != nil {
			return nil, err
		}
	}

	name := FileReceipts
	if g.cfg.Gzip {
		name = FileReceiptGz
	}
	f, err := out.Create(name)
	if err != nil {
		return nil, err
	}
	truth.Files = append(truth.Files, name)
	var zw *gzip.Writer
	var w io.Writer = f
	if g.cfg.Gzip {
		zw, _ = gzip.NewWriterLevel(f, gzip.BestSpeed)
		w = zw
	}
	// A pipeline: chunk k is signed on the workers while chunk k+1 is built;
	// building and writing stay on this goroutine, so the random stream is
	// consumed in one order.
	var buf []byte
	line := 0
	flush := func(chunk []*slot) error {
		buf = buf[:0]
		for _, s := range chunk {
			switch {
			case s.role == roleRemoved:
				truth.Removed++
			case s.role == roleCut:
				truth.Cut++
			default:
				line++
				s.line = line
				switch s.role {
				case roleTamperedPayload:
					s.decision = map[string]string{"allow": "deny", "deny": "allow"}[s.decision]
					s.payload.Get("decision").Text = s.decision
				case roleTamperedSignature:
					r := g.r
					if s.form != formAsqav {
						r = g.mr
					}
					s.sig[r.IntN(len(s.sig))] ^= 1 << r.IntN(8)
				}
				if s.form == formAsqav {
					buf = appendReceipt(buf, s)
				} else {
					buf = appendMix(buf, s)
				}
			}
			s.payload, s.msg, s.sig = canon.Value{}, nil, nil // keep memory flat
		}
		_, err := w.Write(buf)
		return err
	}
	var signing []*slot
	wait := func() {}
	for at := 0; ; at += chunkSize {
		var chunk []*slot // nil on the last round: only the flush remains
		if at < len(g.all) {
			chunk = g.all[at:min(at+chunkSize, len(g.all))]
		}
		for _, s := range chunk {
			g.build(s)
		}
		wait()
		if err := flush(signing); err != nil {
			f.Close()
			return nil, err
		}
		if chunk == nil {
			break
		}
		signing, wait = chunk, g.sign(chunk)
	}
	truth.Lines = line
	if zw != nil {
		if err := zw.Close(); err != nil {
			f.Close()
			return nil, err
		}
	}
	if err := f.Close(); err != nil {
		return nil, err
	}

	if g.witness != nil {
		cps, err := g.checkpoints(g.witness)
		if err != nil {
			return nil, err
		}
		if err := put(FileCheckpoints, cps); err != nil {
			return nil, err
		}
	}
	truth.Records = append(g.records(), g.plantRecords()...)
	var tb bytes.Buffer
	enc := json.NewEncoder(&tb)
	enc.SetEscapeHTML(false)
	for _, r := range truth.Records {
		if err := enc.Encode(r); err != nil {
			return nil, err
		}
	}
	if err := put(FileTruth, tb.Bytes()); err != nil {
		return nil, err
	}
	return truth, nil
}

// appendReceipt appends {"payload":{...},"signature":{...},"anchors":[]}
// and a newline. The payload's own members stay in the order built (a
// reader must canonicalize); nested values are written canonically.
func appendReceipt(b []byte, s *slot) []byte {
	d := canon.AsqavAt(time.UnixMicro(s.t))
	b = append(b, `{"payload":{`...)
	for i := range s.payload.Members {
		mem := &s.payload.Members[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendQuote(b, mem.Name)
		b = append(b, ':')
		var err error
		if b, err = d.Append(b, &mem.Value); err != nil {
			panic(err)
		}
	}
	b = append(b, `},"signature":{"alg":`...)
	b = strconv.AppendQuote(b, string(s.sess.agent.alg))
	b = append(b, `,"kid":`...)
	b = strconv.AppendQuote(b, s.sess.agent.kid)
	b = append(b, `,"sig":"`...)
	b = base64.RawURLEncoding.AppendEncode(b, s.sig)
	b = append(b, `"},"anchors":[]}`...)
	return append(b, '\n')
}

func day(t int64) string { return time.UnixMicro(t).UTC().Format(time.DateOnly) }

// records builds truth.jsonl: the anomalies by line, then the name
// collisions by day and tool name.
func (g *gen) records() []Record {
	var out []Record
	for _, s := range g.all {
		if !s.role.anomalous() || s.line == 0 {
			continue
		}
		k := roleKind[s.role]
		reason, axis := Expected(k)
		r := Record{Line: s.line, ActionID: s.actionID, Kind: k, Reason: reason, Axis: axis, Day: day(s.t)}
		switch s.role {
		case roleTamperedPayload:
			r.Note = "decision changed to " + s.decision + " after signing; last receipt of its chain"
		case roleTamperedSignature:
			r.Note = "one bit of the signature flipped"
			if s.form != formAsqav {
				r.Note += " (" + formName[s.form] + ")"
			}
		case roleRevoked:
			r.Note = "signed by revoked key " + s.sess.agent.kid
		case roleBreak:
			r.Note = fmt.Sprintf("links to the last receipt of session %s (line %d)", s.other.sess.id, s.other.line)
		case roleForkExtra:
			r.Note = fmt.Sprintf("second successor of step %d; the first is line %d", s.step-1, s.other.line)
		case roleAbsentSucc:
			r.Note = fmt.Sprintf("predecessor %s (step %d) removed from the file", s.prev.actionID, s.prev.step)
		case roleReplay:
			r.Note = fmt.Sprintf("reuses the nonce of line %d", s.other.line)
		case roleDrift:
			r.Note = fmt.Sprintf("fingerprint of %s/%s with an added property %s", s.tool.server, s.tool.name, driftProperty)
		}
		out = append(out, r)
	}
	type key struct{ day, name string }
	seen := map[key]map[string]string{} // fingerprint -> server
	var keys []key
	for _, s := range g.all {
		if s.line == 0 || s.role == roleDrift || s.form == formAgentReceipt || !g.tb.colliding[s.tool.name] {
			continue
		}
		k := key{day(s.t), s.tool.name}
		if seen[k] == nil {
			seen[k] = map[string]string{}
			keys = append(keys, k)
		}
		seen[k][s.tool.fp] = s.tool.server
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.day != b.day {
			return cmp.Compare(a.day, b.day)
		}
		return cmp.Compare(a.name, b.name)
	})
	reason, _ := Expected(KindNameCollision)
	for _, k := range keys {
		fps := seen[k]
		if len(fps) < 2 {
			continue
		}
		r := Record{Kind: KindNameCollision, Reason: reason, Day: k.day, ToolName: k.name}
		for fp := range fps {
			r.Fingerprints = append(r.Fingerprints, fp)
		}
		slices.Sort(r.Fingerprints)
		for _, fp := range r.Fingerprints {
			r.Servers = append(r.Servers, fps[fp])
		}
		r.Note = fmt.Sprintf("%d servers' %s used on %s", len(fps), k.name, k.day)
		out = append(out, r)
	}
	return out
}
