// Package streamrun is the engine of package stream (verify/stream), whose
// doc describes it: the two passes, the index, the spool. Package stream
// is its public face, Run and the types a caller needs; the sharded run's
// halves (Map, Folder), which the command and internal/shard call, are
// here alone. It builds on package verify (its Result) as stream does; a
// run is given a Verifier, which *verify.Verifier is.
package streamrun

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/receiptverify/verify/internal/helpers/bufpool"
	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// Verifier verifies one receipt: *verify.Verifier.
type Verifier interface {
	VerifyWith(raw []byte, o verify.VerifyOptions) (*verify.Result, error)
}

// Source is one input: a name for messages and a way to open it. A source
// is opened once per pass, so it must be re-readable (the CLI spools
// standard input to a file). A source whose bytes are gzip (they begin
// 1f 8b, which no JSON text can) is read decompressed, its expansion
// bounded as the command bounds a .gz file (limits.MaxGzipContent of its
// size when Open returns an *os.File, else of the compressed bytes read so
// far); a bad or oversized gzip stream is that source's error. FileSource
// makes a Source from a path.
type Source struct {
	Name  string
	Open  func() (io.ReadCloser, error)
	Lines bool // JSON Lines; otherwise the whole source is one document
}

// Options tune a run.
type Options struct {
	Workers int // 0 means all cores
	// Predecessors are receipts outside the input that links may name
	// (the --predecessor flag); they are indexed, not reported.
	Predecessors [][]byte
	// Prior, if set, is an archive loaded before this run, so that chains
	// crossing from it into the input resolve and its nonces count as used.
	Prior Prior
	// PriorBatch is how many keys one question to Prior carries at most
	// (0: 4,096). The run holds the link groups of one batch in memory
	// (about 150 bytes a key); an archive whose every question reads all
	// it holds (a join over a table) asks fewer, larger questions, so that
	// a run costs it one read of the archive rather than one per 4,096
	// keys.
	PriorBatch int
	// Render, if set, is called on each result on the verifying goroutines
	// to append its encoding to dst, and what it returns is kept in
	// Record.Rendered: output encoding then runs on all cores instead of on
	// the one that calls emit. Rendered is valid until emit returns; its
	// memory is then reused for a later result.
	Render func(dst []byte, r *verify.Result) []byte
	// KeepRaw keeps each record's bytes in Record.Raw, and where they are
	// in the source in Record.Offset (for loading into analytics): the
	// second pass then reads the input again, and fails with
	// ErrInputChanged if it is not what was verified. Results never carry
	// the signature text (Fields.Signature), only its SHA-256: a caller
	// that wants the text has it in Raw.
	KeepRaw bool
	// OmitSignatureHash leaves Fields.SignatureSHA256 empty in every
	// result, for a caller that does not write it out (text output, the
	// analytics load); see verify.VerifyOptions.
	OmitSignatureHash bool
	// TempDir holds the spool of verified results between the two passes
	// ("" is os.TempDir()); it is removed when Run returns.
	TempDir string
	// Progress, if set, is called from one goroutine as records are done.
	Progress func(Progress)

	// renderRecord and keep are RunTo's Sink.Render and Sink.Keep.
	renderRecord func(dst []byte, rec *Record) []byte
	keep         func(dst, raw []byte, sum [sha256.Size]byte, res *verify.Result) []byte

	limits    indexLimits // zero: the defaults
	maxLines  int         // tests: replaces limits.MaxLinesPerFile
	maxBlanks int         // tests: replaces limits.MaxBlankLinesPerFile
}

// Prior is what an archive loaded earlier (an audit database) knows about
// chains and nonces, so that a run judges its input against everything
// loaded before as one run over the whole would: a daily load, a load
// resumed after an interruption and a one-shot load give the same
// verdicts. It is asked between the two passes, in batches.
type Prior interface {
	// Links is given the first 32 hex characters (128 bits) of every
	// predecessor hash the input names that the input itself does not hold
	// or that an archived receipt may already name, and returns what the
	// archive knows of each, keyed the same way.
	Links(ctx context.Context, prefixes []string) (map[string]PriorLink, error)
	// Nonces is given the nonce digest of every (issuer, nonce) the input
	// uses, the first 32 hex characters (128 bits) of the SHA-256 of the
	// receipt's nonce key (verify.Result.NonceKey), and returns those an
	// archived receipt already used.
	Nonces(ctx context.Context, digests []string) (map[string]bool, error)
}

// PriorScopes is a Prior that also knows the chain scopes of the receipts
// it holds. With it, a link to a receipt neither the input nor the archive
// holds is a gap (chain_absent) when the archive holds earlier receipts of
// its chain, as one run over the archive and the input would judge it, and
// not a chain that starts before the input: a log loaded as it grows, or a
// day at a time, gives the verdicts of one load of the whole. An archive
// loaded out of order (the next day first) holds only later receipts of
// the chain, which make no gap.
type PriorScopes interface {
	Prior
	// Scopes is asked, for every chain scope whose first receipt in the
	// input names a receipt neither holds, whether the archive holds a
	// receipt of that scope with a chain hash standing before that
	// receipt (ScopeQuery.Order), and returns those it does, by Digest.
	// Every archived receipt of the scope counts as earlier for a query
	// without an Order.
	Scopes(ctx context.Context, qs []ScopeQuery) (map[string]bool, error)
}

// PriorOrders is a Prior that also knows where its receipts stand in the
// receipts' Order. With it, the first use of a nonce in the input that
// stands before every archived use is the original (nonce unique), and
// the archived uses are the replays; the first receipt of the input to
// name a predecessor that stands before every archived namer is the first
// namer (linked), and the archived namers are the forks: the archive
// revises their verdicts after the run, so that loads in any order agree
// with one load of all.
type PriorOrders interface {
	Prior
	// NonceFirsts is given nonce digests (as Nonces) the archive used and
	// returns, for each, the Order of its earliest archived use.
	NonceFirsts(ctx context.Context, digests []string) (map[string]Order, error)
	// NamerFirsts is given chain hash prefixes (as Links) that archived
	// receipts name and returns, for each, the Order of the earliest
	// archived receipt naming it (a claim names nothing).
	NamerFirsts(ctx context.Context, prefixes []string) (map[string]Order, error)
}

// ScopeQuery asks PriorScopes about one chain scope.
type ScopeQuery struct {
	// Digest is the scope digest: the first 32 hex characters (128 bits)
	// of the SHA-256 of the scope (verify.Result.ScopeKey).
	Digest string
	// Before is the issue time, in Unix microseconds, of the input's
	// first receipt of the scope, when HasBefore.
	Before    int64
	HasBefore bool
	// Order is that receipt's Order, when HasOrder (the input holds a
	// receipt of the scope that counts); Own, the first 32 hex
	// characters of its chain hash, empty without one. An archived
	// receipt of the scope stands before it when it names no
	// predecessor (a genesis), or stands before it in Order and is not
	// it delivered again (another chain hash): as the stream decides a
	// chain's first receipt (scopeStart).
	Order    Order
	HasOrder bool
	Own      string
}

// NonceDigest is the key a Prior is asked nonces by: the first 32 hex
// characters (128 bits) of the SHA-256 of the receipt's nonce key (its
// issuer and nonce, verify.Result.NonceKey); empty without a nonce. An
// archive stores it beside each receipt to answer Prior.Nonces.
func NonceDigest(nonceKey string) string {
	if nonceKey == "" {
		return ""
	}
	k := hashKey(nonceKey)
	return hex.EncodeToString(k[:])
}

// ScopeDigest is how an archive keeps a receipt's chain scope
// (verify.Result.ScopeKey) for PriorLink, without the receipt: the first 32
// hex characters (128 bits) of its SHA-256, as the stream compares scopes.
func ScopeDigest(scope string) string {
	k := hashKey(scope)
	return hex.EncodeToString(k[:])
}

// PriorLink is what an earlier archive knows of one chain hash.
type PriorLink struct {
	Found bool   // a receipt with this chain hash is archived
	Scope string // its chain scope (verify.ChainScope), when Found
	// ScopeDigest is the scope's digest (as ScopeQuery.Digest), which an
	// archive may keep instead of the scope; when set, Scope is not read.
	ScopeDigest string
	Named       bool // an archived receipt already names it as predecessor
}

// Progress is how far a run has come.
type Progress struct {
	Pass    int // 1 verifying, 2 judging chains and writing
	Records int64
	Bytes   int64
}

// Record is one record of the input as Run emits it: its verification
// and the bytes that go with it.
type Record struct {
	*verify.Result
	// Raw is the record exactly as read, with Options.KeepRaw (for an
	// archive that stores it); nil without. Valid until emit returns.
	Raw []byte
	// Offset is where Raw starts in its source, in bytes from the start of
	// the stream read (a gzip file's decompressed bytes), with
	// Options.KeepRaw; Raw is that many bytes on, without the line end. An
	// archive records it to find the receipt again.
	Offset int64
	// Rendered is what Options.Render appended for the Result, when set.
	// Valid until emit returns.
	Rendered []byte
	// Kept is what RunTo's Sink.Keep appended for a line verified, when set.
	// Valid until emit returns.
	Kept []byte
	// FileError: the record is its source's last, which could not be
	// read on (Summary.FilesFailed): a read error, or a bound on lines or
	// blank lines reached. A reader that stores sources whole refuses it.
	FileError bool
	// Duplicate: the receipt is an earlier one of the input or the
	// archive delivered again (Summary.Duplicates). ChainOutside: it is
	// the first receipt of a chain that starts before the input
	// (Summary.ChainsOutside).
	Duplicate, ChainOutside bool
}

// Summary counts every record of the run: each line read ends in exactly
// one of Blank, Unreadable, Pass, Fail or Incomplete.
type Summary struct {
	Files       int                     `json:"files"`
	FilesFailed int                     `json:"files_unreadable"`
	Lines       int64                   `json:"lines"`
	Blank       int64                   `json:"blank"`
	Receipts    int64                   `json:"receipts"` // verified: Pass + Fail + Incomplete
	Pass        int64                   `json:"pass"`
	Fail        int64                   `json:"fail"`
	Incomplete  int64                   `json:"incomplete"`
	Unreadable  int64                   `json:"unreadable"`
	Reasons     map[reason.Reason]int64 `json:"reasons"`
	// UnknownFormat counts the Incomplete receipts no format's detector
	// claimed (reason unknown_format): of a producer this tool does not
	// read, not checked, which is not the same as failed.
	UnknownFormat int64 `json:"unknown_format"`
	// Duplicates counts receipts that are an earlier receipt of the input
	// (or the archive) delivered again: the same chain hash, so the same
	// signed bytes. They are judged as the first delivery was, not as
	// replays or forks.
	Duplicates int64 `json:"duplicates"`
	// ChainsOutside counts chains whose first receipt in the input names
	// a predecessor that neither the input nor the archive holds: chains
	// that start before the input, their first link not checked.
	ChainsOutside int64 `json:"chains_outside"`
}

// Add counts o in s as well: the summary of two runs, or of the parts of
// one (its shards, its files), every count and reason summed.
func (s *Summary) Add(o Summary) {
	s.Files += o.Files
	s.FilesFailed += o.FilesFailed
	s.Lines += o.Lines
	s.Blank += o.Blank
	s.Receipts += o.Receipts
	s.Pass += o.Pass
	s.Fail += o.Fail
	s.Incomplete += o.Incomplete
	s.UnknownFormat += o.UnknownFormat
	s.Unreadable += o.Unreadable
	s.Duplicates += o.Duplicates
	s.ChainsOutside += o.ChainsOutside
	if len(o.Reasons) > 0 && s.Reasons == nil {
		s.Reasons = map[reason.Reason]int64{}
	}
	for r, n := range o.Reasons {
		s.Reasons[r] += n
	}
}

// Run verifies every source and calls emit once per record that is not a
// blank line, in input order, from a single goroutine. emit may keep the
// Record's Result; its Raw and Rendered bytes are the stream's, valid only
// until emit returns. A source that cannot
// be opened or read is reported through emit as an UNREADABLE result with
// line 0 and counted in FilesFailed; the run goes on.
func Run(ctx context.Context, v Verifier, srcs []Source, opts Options, emit func(*Record) error) (Summary, error) {
	if opts.Workers <= 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	lim := opts.limits
	lim.priorBatch = cmp.Or(lim.priorBatch, max(opts.PriorBatch, 0))
	idx := newIndex(opts.TempDir, lim)
	defer idx.close()
	for i, raw := range opts.Predecessors {
		res, _ := v.VerifyWith(raw, verify.VerifyOptions{})
		if err := idx.add(predecessorSeq+uint64(i), Index(res)); err != nil {
			return Summary{}, err
		}
	}
	sp, err := newSpool(opts.TempDir, opts.KeepRaw)
	if err != nil {
		return Summary{}, err
	}
	sp.keep = opts.keep
	defer sp.remove()
	r := &runner{v: v, srcs: srcs, opts: opts, idx: idx, sp: sp}
	if err := r.verifyPass(ctx); err != nil {
		return Summary{}, err
	}
	if err := idx.resolve(ctx, opts.Prior); err != nil {
		return Summary{}, err
	}
	return r.writePass(ctx, emit)
}

// runner holds what the two passes of one run share.
type runner struct {
	v    Verifier
	srcs []Source
	opts Options
	idx  *index
	sp   *spool
}

func (rn *runner) sources(ctx context.Context, n *atomic.Int64) producer {
	bounds := lineBounds{lines: cmp.Or(rn.opts.maxLines, limits.MaxLinesPerFile), blanks: cmp.Or(rn.opts.maxBlanks, limits.MaxBlankLinesPerFile)}
	return sourcesProducer(ctx, rn.srcs, bounds, n)
}

// verifyPass reads the input, verifies each receipt, indexes its chain and
// nonce, and spools every record with its result.
func (rn *runner) verifyPass(ctx context.Context) error {
	err := pipeline(ctx, rn.sources, rn.opts, 1, nil,
		func(r *record) {
			if r.kind != recordLine {
				return
			}
			// The signature text is kilobytes the spool need not carry.
			res, _ := rn.v.VerifyWith(r.raw, verify.VerifyOptions{DropSignature: true, OmitSignatureHash: rn.opts.OmitSignatureHash})
			res.Source, res.Line = r.source, r.line
			r.entry = Index(res)
			if r.entry.OK || rn.sp.keep != nil {
				r.lineSum = sha256.Sum256(r.raw)
			}
			if r.entry.OK {
				r.entry.SetTiebreak(r.lineSum) // nonces, namers and chain hashes are ordered by it
			}
			r.spooled = rn.sp.encode(r, res)
		},
		func(r *record) error {
			if r.kind != recordLine {
				return rn.sp.write(rn.sp.encode(r, nil))
			}
			releaseLine(r.raw) // its result, which may borrow from it, is in the frame
			r.raw = nil
			if err := rn.idx.add(r.seq, r.entry); err != nil {
				return err
			}
			frame := r.spooled
			r.spooled = nil // write releases it
			return rn.sp.write(frame)
		})
	if err != nil {
		return err
	}
	return rn.sp.rewind()
}

// writePass gives each receipt the judgments of its chain link and nonce
// and emits it, reading the spool alone or, when the records' bytes are
// wanted, the input again beside the spool.
func (rn *runner) writePass(ctx context.Context, emit func(*Record) error) (Summary, error) {
	judgments, err := rn.idx.judgmentReader()
	if err != nil {
		return Summary{}, err
	}
	records := func(_ context.Context, n *atomic.Int64) producer { return rn.sp.producer(n) }
	attach := func(r *record) (err error) {
		if r.kind == recordLine {
			r.judgments, err = judgments.of(r.seq)
		}
		return err
	}
	if rn.opts.KeepRaw {
		records, attach = rn.sources, rn.attachReread(judgments)
	}
	sum := Summary{Files: len(rn.srcs), Reasons: map[reason.Reason]int64{}}
	err = pipeline(ctx, records, rn.opts, 2, attach,
		func(r *record) {
			if r.kind != recordLine {
				return
			}
			res, err := rn.sp.decode(r)
			if r.kept == nil { // what Keep kept lies in the frame until emit returns
				releaseFrame(r.frame)
				r.frame = nil
			}
			r.spooled = nil
			if err != nil {
				r.err = &SourceError{Source: r.source, Line: r.line, Err: err}
				return
			}
			if res.Verdict != verify.Unreadable {
				judge(res, r.judgments)
			}
			switch {
			case rn.opts.Render != nil:
				r.rendered = rn.opts.Render(renderBufs.Get(), res)
			case rn.opts.renderRecord != nil:
				rec := Record{Result: res, Raw: r.raw, Offset: r.offset, Kept: r.kept}
				rec.Duplicate, rec.ChainOutside = deliveryOf(r.judgments, res)
				r.rendered = rn.opts.renderRecord(renderBufs.Get(), &rec)
			}
			r.result = res
		},
		func(r *record) error {
			err := sum.add(r, rn.opts, emit)
			if r.frame != nil {
				releaseFrame(r.frame)
				r.frame, r.kept = nil, nil
			}
			return err
		})
	if err == nil && rn.opts.KeepRaw {
		err = rn.sp.drained()
	}
	sum.Receipts = sum.Pass + sum.Fail + sum.Incomplete
	return sum, err
}

// attachReread pairs each record read again with its spooled frame and
// judgments, and fails when the input is not what the first pass read.
func (rn *runner) attachReread(judgments *judgmentReader) func(r *record) error {
	return func(r *record) error {
		f, _, err := rn.sp.nextFrame()
		if err == errSpoolEnd {
			err = ErrInputChanged // more records than the first pass read
		}
		if err == nil && !f.matches(r) {
			err = ErrInputChanged
		}
		if err != nil {
			return &SourceError{Source: r.source, Line: r.line, Err: err}
		}
		if r.kind == recordLine {
			r.spooled, r.frame = f.rest, f.buf
			r.judgments, err = judgments.of(r.seq)
		} else {
			releaseFrame(f.buf)
		}
		return err
	}
}

// renderBufs recycles the buffers Options.Render writes into: one per
// result, a kilobyte or two each.
var renderBufs bufpool.Pool

// add counts one record of the second pass and emits its result.
func (sum *Summary) add(r *record, opts Options, emit func(*Record) error) error {
	if blank := sum.count(r); blank {
		return nil
	}
	var res *verify.Result
	rec := Record{Rendered: r.rendered}
	switch r.kind {
	case recordFileError:
		res, rec.FileError = unreadable(r, r.err), true
	case recordLineError:
		res = unreadable(r, r.err)
		if opts.KeepRaw {
			rec.Raw, rec.Offset = r.raw, r.offset
		}
	default:
		if r.err != nil {
			return r.err
		}
		res, rec.Raw, rec.Offset, rec.Kept = r.result, r.raw, r.offset, r.kept
	}
	rec.Result = res
	if rec.Rendered == nil && opts.Render != nil {
		rec.Rendered = opts.Render(renderBufs.Get(), res)
	}
	sum.tally(res)
	rec.Duplicate, rec.ChainOutside = deliveryOf(r.judgments, res)
	sum.deliveries(r.judgments, res)
	err := emit(&rec)
	renderBufs.Put(rec.Rendered)
	r.rendered = nil
	return err
}

// count counts one record by its kind, as Run and Map both do: its line
// (a failed file has none), and whether it is blank, a file that failed,
// or unreadable (a line that could not be read, or a document whose
// result is UNREADABLE). A line whose result was lost (r.err, the run's
// error) is counted as a line only. blank: nothing more to count or emit.
func (sum *Summary) count(r *record) (blank bool) {
	sum.Lines += int64(r.lineCount())
	switch r.kind {
	case recordBlank:
		sum.Blank++
		return true
	case recordFileError:
		sum.FilesFailed++
	case recordLineError:
		sum.Unreadable++
	default:
		if r.err == nil && r.result.Verdict == verify.Unreadable {
			sum.Unreadable++
		}
	}
	return false
}

// tally counts a result's verdict, but for UNREADABLE (counted by the
// kind of record), and its reasons.
func (sum *Summary) tally(res *verify.Result) {
	switch res.Verdict {
	case verify.Pass:
		sum.Pass++
	case verify.Fail:
		sum.Fail++
	case verify.Incomplete:
		sum.Incomplete++
		if verify.IsUnknownFormat(res) {
			sum.UnknownFormat++
		}
	}
	for _, reason := range res.Reasons {
		sum.Reasons[reason]++
	}
}

// deliveries counts a record's receipt delivered again or starting a
// chain outside the input, from its judgments.
func (sum *Summary) deliveries(js []judgment, res *verify.Result) {
	dup, outside := deliveryOf(js, res)
	if dup {
		sum.Duplicates++
	}
	if outside {
		sum.ChainsOutside++
	}
}

func unreadable(r *record, err error) *verify.Result {
	return &verify.Result{
		Version: verify.ResultVersion, Source: r.source, Line: r.line, Format: "unknown",
		Verdict: verify.Unreadable, Reasons: []reason.Reason{reason.Malformed},
		Error: err.Error(),
	}
}

// predecessorSeq numbers receipts given with --predecessor, after any
// input record.
const predecessorSeq = 1 << 62

type recordKind uint8

const (
	recordLine      recordKind = iota // a document to verify
	recordBlank                       // an empty or white-space line
	recordLineError                   // a line that could not be read (too long)
	recordFileError                   // a source that could not be opened or read
)

// record is one input item travelling through the pipeline.
type record struct {
	kind   recordKind
	seq    uint64 // ordinal over the whole run, the same in both passes
	source string
	line   int
	offset int64 // of the line in its source, in bytes (Record.Offset)
	raw    []byte
	err    error
	entry  IndexEntry
	// lineSum is the SHA-256 of raw, taken once in the first pass for
	// the Order's tiebreak and Sink.Keep.
	lineSum [sha256.Size]byte
	// spooled is the record's verified result between the passes; frame,
	// in the second pass, the framePool buffer it lies in.
	spooled   []byte
	frame     []byte
	judgments []judgment // of its chain link and nonce, in pass 2
	result    *verify.Result
	rendered  []byte   // Options.Render's encoding of result, in pass 2
	kept      []byte   // what RunTo's Sink.Keep kept, in pass 2 (in frame)
	lineRef   *LineRef // Map's: where the line is and its SHA-256
}

func (r *record) lineCount() int {
	if r.kind == recordFileError {
		return 0
	}
	return 1
}

// batch is the unit of work handed to a worker.
type batch struct {
	recs []*record
	done chan struct{}
}

// A batch closes at batchRecords records or once its lines reach
// batchBytes. The pipeline holds a bounded number of batches, so the bytes
// bound is what keeps memory flat when lines are long: at up to 16 MiB a
// line, 64 of them a batch would put gigabytes in flight.
const (
	batchRecords = 64
	batchBytes   = 1 << 20
)

// pipeline takes the records of a pass from produce, calls attach (if set)
// on each on the reading goroutine, runs work on batches of records across
// opts.Workers goroutines, and calls done on each record in input order.
// In-flight batches are bounded, so memory does not grow with the input.
func pipeline(ctx context.Context, produce func(ctx context.Context, bytesRead *atomic.Int64) producer, opts Options, pass int, attach func(*record) error, work func(*record), done func(*record) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	jobs := make(chan *batch, opts.Workers*2)
	ordered := make(chan *batch, opts.Workers*4)
	var wg sync.WaitGroup
	for w := 0; w < opts.Workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range jobs {
				for _, r := range b.recs {
					work(r)
				}
				close(b.done)
			}
		}()
	}
	var bytesRead atomic.Int64
	readErr := make(chan error, 1)
	go func() {
		defer close(ordered)
		defer close(jobs)
		readErr <- batchAll(produce(ctx, &bytesRead), attach, func(b *batch) bool {
			select {
			case ordered <- b:
			case <-ctx.Done():
				return false
			}
			select {
			case jobs <- b:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	var n int64
	var emitErr error
	for b := range ordered {
		// Once the run is cancelled, a batch may be in ordered that the
		// reader never handed to a worker: waiting for it would never end.
		select {
		case <-b.done:
		case <-ctx.Done():
		}
		if emitErr != nil || ctx.Err() != nil {
			continue
		}
		for _, r := range b.recs {
			if err := done(r); err != nil {
				emitErr = err
				cancel()
				break
			}
		}
		n += int64(len(b.recs))
		if opts.Progress != nil {
			opts.Progress(Progress{Pass: pass, Records: n, Bytes: bytesRead.Load()})
		}
	}
	wg.Wait()
	if err := <-readErr; err != nil && emitErr == nil {
		return err
	}
	if emitErr != nil {
		return emitErr
	}
	return ctx.Err()
}
