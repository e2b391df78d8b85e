package streamrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"runtime"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// A sharded run splits Run in two, so that the first half runs on many
// machines: Map is the first pass alone over one shard of the input (a
// file, a few files), giving each record its result verified alone, the
// keys of its chain link and nonce, and an opaque state; the judgments of
// chains and nonces across all shards are then made elsewhere (the SQL
// of queries/shard), and Folder gives each state its judgments and the
// verdict Run would have given it. The judging rule is this package's:
// Folder.Fold applies the same judge as Run's second pass, and the SQL is
// tied to index.resolve by a test that compares the two over the same
// input.

// Keys are a receipt's chain and nonce as the index sorts them, in hex
// (32 characters, 128 bits), empty where the receipt has none: Chain its
// own chain hash, Link the predecessor it names, Scope its chain scope,
// Nonce its NonceDigest. A receipt whose Link is another's Chain links to
// it when their Scopes agree. Claim marks a receipt whose signature did
// not verify (IndexEntry.Claim): it has no Nonce, and its Chain counts as
// a predecessor present, its Link is judged, and it begins no chain.
//
// Order is the receipt's Order in hex (48 characters) when it has a chain
// hash, a link or a nonce: the first use of a nonce, the first receipt
// that counts to name a predecessor and the first of the receipts sharing
// a chain hash is the one with the least Order (then the least ordinal),
// as Run decides it.
type Keys struct {
	Chain, Link, Scope, Nonce, Order string
	Claim                            bool
}

// keysOf is the index's view of e (index.add), in hex.
func keysOf(e IndexEntry) Keys {
	if !e.OK {
		return Keys{}
	}
	var k Keys
	scope := hashKey(e.Scope)
	k.Scope = hex.EncodeToString(scope[:])
	if e.HasHash {
		k.Chain = hex.EncodeToString(e.ChainHash[:16])
	}
	if e.HasLink {
		k.Link = hex.EncodeToString(e.Link[:16])
	}
	if e.HasHash || e.HasLink || e.NonceKey != "" && !e.Claim {
		o := e.Order()
		k.Order = hex.EncodeToString(o[:])
	}
	if e.Claim {
		k.Claim = true // no nonce: a claim uses none
		return k
	}
	k.Nonce = NonceDigest(e.NonceKey)
	return k
}

// Mapped is one record of a Map run that is not a blank line.
type Mapped struct {
	// Seq is the record's ordinal in the run, blank lines counted, as Run
	// numbers records: a shard's records are numbered from 0.
	Seq uint64
	// Result is the record verified alone: its chain and nonce axes are
	// not judged yet. UNREADABLE for a line or a file that could not be
	// read, as Run reports them.
	Result *verify.Result
	Keys   Keys
	// State is what Folder.Fold reads back: the result in a binary form
	// private to one build of this package.
	State []byte
	// Line is where the record's line is in its source (Offset, as
	// Record.Offset), its length in bytes without the line end, and
	// the SHA-256 of those bytes: how a load finds the line in its
	// archive file. Zero for a file that could not be read (HasLine
	// false).
	Line    LineRef
	HasLine bool
	// Fold is what the verdict takes from the checks of the receipt
	// alone, for a fold in SQL.
	Fold FoldBase
}

// LineRef is where a line is in its source and what it holds: its
// offset and length in bytes, the line end left out, and their SHA-256.
type LineRef struct {
	Offset, Length int64
	SHA256         [sha256.Size]byte
}

// MapSummary counts a Map run: of Summary, the fields that judgments do
// not change (Files, FilesFailed, Lines, Blank, Unreadable), and Records,
// the ordinals the run used (the next shard's records follow them).
type MapSummary struct {
	Summary
	Records uint64 `json:"records"`
}

// Map verifies every source as Run's first pass does and calls emit once
// per record that is not a blank line, in input order, from a single
// goroutine. Options.Workers, TempDir and Progress apply; the others must
// be zero (Predecessors, Prior: judged at the fold; Render, KeepRaw).
func Map(ctx context.Context, v Verifier, srcs []Source, opts Options, emit func(*Mapped) error) (MapSummary, error) {
	if len(opts.Predecessors) > 0 || opts.Prior != nil || opts.Render != nil || opts.renderRecord != nil || opts.keep != nil || opts.KeepRaw || opts.OmitSignatureHash {
		return MapSummary{}, fmt.Errorf("streamrun.Map: only Workers, TempDir and Progress apply")
	}
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	rn := &runner{v: v, srcs: srcs, opts: opts}
	sum := MapSummary{Summary: Summary{Files: len(srcs)}}
	var records uint64
	err := pipeline(ctx, rn.sources, opts, 1, nil,
		func(r *record) {
			var res *verify.Result
			switch r.kind {
			case recordLine:
				res, _ = v.VerifyWith(r.raw, verify.VerifyOptions{DropSignature: true})
				res.Source, res.Line = r.source, r.line
				r.lineRef = &LineRef{Offset: r.offset, Length: int64(len(r.raw)), SHA256: sha256.Sum256(r.raw)}
				releaseLine(r.raw)
				r.raw = nil
			case recordLineError, recordFileError:
				res = unreadable(r, r.err)
			default:
				return
			}
			r.result = res
			r.spooled = appendResult(res, nil)
		},
		func(r *record) error {
			records = r.seq + 1
			ref := r.lineRef
			r.lineRef = nil
			if blank := sum.count(r); blank {
				return nil
			}
			e := Index(r.result)
			if ref != nil {
				e.SetTiebreak(ref.SHA256)
			}
			m := &Mapped{Seq: r.seq, Result: r.result, Keys: keysOf(e), State: r.spooled, Fold: foldBaseOf(r.result, r.spooled)}
			if ref != nil {
				m.Line, m.HasLine = *ref, true
			}
			r.result, r.spooled = nil, nil
			return emit(m)
		})
	sum.Records = records
	return sum, err
}

// Judgment is one judgment of a record's chain link or nonce across the
// whole input, as the sharded judgment SQL gives it.
type Judgment struct {
	Kind string // "chain", "nonce" or "delivery"
	// Outcome, of a chain: linked, absent, outside, break, fork_prior,
	// fork; of a nonce: unique, replay, prior_replay, duplicate,
	// prior_duplicate; of a delivery: duplicate, prior_duplicate.
	Outcome string
	// First is the record, by its ordinal over the whole run (every shard
	// before its own counted), that named the link or used the nonce
	// first.
	First uint64
}

// outcomes are the SQL's names of the index's outcomes.
var outcomes = map[[2]string]byte{
	{"chain", "linked"}:             chainLinked,
	{"chain", "absent"}:             chainAbsent,
	{"chain", "break"}:              chainBreak,
	{"chain", "fork_prior"}:         chainForkPrior,
	{"chain", "fork"}:               chainFork,
	{"nonce", "unique"}:             nonceUnique,
	{"nonce", "replay"}:             nonceReplay,
	{"nonce", "prior_replay"}:       noncePriorReplay,
	{"chain", "outside"}:            chainOutside,
	{"nonce", "duplicate"}:          nonceDuplicate,
	{"nonce", "prior_duplicate"}:    noncePriorDuplicate,
	{"delivery", "duplicate"}:       deliveryDuplicate,
	{"delivery", "prior_duplicate"}: deliveryPriorDuplicate,
}

// Folder is the second half of a sharded run: it folds each record's
// judgments into its result and counts the run as Run's Summary would.
type Folder struct {
	sum Summary
}

// NewFolder starts the fold of a run whose shards Map summarized.
func NewFolder(shards ...MapSummary) *Folder {
	f := &Folder{sum: Summary{Reasons: map[reason.Reason]int64{}}}
	for _, s := range shards {
		f.sum.Files += s.Files
		f.sum.FilesFailed += s.FilesFailed
		f.sum.Lines += s.Lines
		f.sum.Blank += s.Blank
		f.sum.Unreadable += s.Unreadable
	}
	return f
}

// Fold reads back a Mapped.State, gives it its judgments as Run's second
// pass would and counts it. Records must come in run order for the
// summary to be Run's, though each fold stands alone.
func (f *Folder) Fold(state []byte, js []Judgment) (*verify.Result, error) {
	res := new(verify.Result)
	if err := res.UnmarshalBinary(state); err != nil {
		return nil, err
	}
	if res.Verdict != verify.Unreadable {
		var own []judgment
		for _, j := range js {
			o, ok := outcomes[[2]string{j.Kind, j.Outcome}]
			if !ok {
				return nil, fmt.Errorf("%s line %d: no judgment %q of kind %q", res.Source, res.Line, j.Outcome, j.Kind)
			}
			kind := kindChain
			switch j.Kind {
			case "nonce":
				kind = kindNonce
			case "delivery":
				kind = kindDelivery
			}
			own = append(own, judgment{kind: kind, outcome: o, first: j.First})
		}
		judge(res, own)
		f.sum.deliveries(own, res)
	}
	f.sum.tally(res)
	return res, nil
}

// Summary is the run's summary, once every record is folded.
func (f *Folder) Summary() Summary {
	s := f.sum
	s.Receipts = s.Pass + s.Fail + s.Incomplete
	return s
}
