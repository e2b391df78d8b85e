package analytics

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"os"
	"slices"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/rawpolicy"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
	"github.com/receiptverify/verify/verify/toolschema"
)

// Input is one file to load: how to read its records (Source, decompressed
// when the file is gzipped; Source.Name is what the database records as
// path and source) and, when they differ from what Source.Open reads, how
// to read its bytes as stored.
type Input struct {
	stream.Source
	// Stored opens the file's bytes as stored (a gzip file's compressed
	// bytes), for files.size_bytes and to recognise a gzip file that a
	// database written before content identity knows by its compressed
	// bytes. Nil means Source.Open. The file is known by its content
	// (what Source.Open reads) either way.
	Stored func() (io.ReadCloser, error)
	// NoArchive says the content is not kept where Name says (standard
	// input, a pipe): every line is stored in receipts.raw, whatever
	// LoadOptions.Raw, as the database is then its only copy.
	NoArchive bool
}

// LoadOptions tune a load.
type LoadOptions struct {
	// Schemas are the expected tool schemas the verifier was given; their
	// tools are added to expected_tools. Nil adds none.
	Schemas *toolschema.Set
	// Workers verifying (0: one per core).
	Workers int
	// TempDir holds the row spools ("" is os.TempDir()): at most two
	// 2 GiB chunks of receipts rows at a time, and a file's rejects.
	TempDir string
	// Progress, if set, is called as records are verified (streamrun.Options).
	Progress func(stream.Progress)
	// Committing, if set, is called as each file's commit phase begins
	// (its records are verified; its last rows are yet to be stored and
	// committed). OnFile follows when it ends, whatever its outcome.
	Committing func(Commit)
	// OnFile, if set, is called once per input: for a file already loaded
	// or unreadable as soon as that is known (before any file is
	// verified), for the others when the file is committed or found
	// unreadable part way.
	OnFile func(FileSummary)
	// At is the load's clock: files.loaded_at and the day of undated
	// receipts. Zero means the time the load starts. Give the verifier's
	// judging time (--at), so that the load depends on no other clock.
	At time.Time
	// Trust is the material v was built from, recorded in the trust table;
	// every files and receipts row loaded points to it.
	Trust Trust
	// Reverify re-verifies, with v, the stored receipts of the inputs that
	// are already loaded but were verified with other trust material, all
	// in one transaction. Without it such inputs are reported
	// (FileSummary.TrustChanged) and left as they are.
	Reverify bool
	// Raw says which receipts keep their line in the database (the
	// others are found in their archive file by offset and SHA-256).
	Raw rawpolicy.Policy
	// Run names the load in the revisions it records ("verify load
	// 2026-11-05T01:10:02Z pid 4711"); empty is allowed.
	Run string

	// beforeCommit, in tests, is called with each file's transaction open
	// and its rows inserted; an error rolls the file back.
	beforeCommit func(ctx context.Context, f *FileSummary) error
	// chunkBytes, in tests, replaces defaultChunkBytes.
	chunkBytes int64
}

// FileSummary is what a load did with one input.
type FileSummary struct {
	Path   string // Source.Name
	SHA256 string // hex, of the content (decompressed); empty when the file could not be read
	Size   int64  // as stored
	// AlreadyLoaded: the content is already in the database, under this
	// name or another, or earlier in the input (or it is an earlier state
	// of a stored file that has grown since): nothing added.
	AlreadyLoaded bool
	// FirstLine is the first line loaded: 1, or, for a file that has grown
	// since it was loaded, one past the lines stored from it (Extends).
	FirstLine int64
	Extends   string // SHA256 of the stored content this file extends, if any
	Lines     int64  // lines read from FirstLine on, blank ones included
	Accepted  int64  // rows added to receipts
	Rejected  int64  // rows added to rejects
	// Duplicates counts the receipts added that are receipts of the input
	// or the database delivered again; ChainsOutside, the chains whose
	// first receipt added names a receipt neither holds (its link not
	// checked): see streamrun.Summary.
	Duplicates, ChainsOutside int64
	// Redelivered are the file's receipts whose lines are stored already
	// from another file (a batch delivered again): counted here, not
	// stored again, not judged replays, and out of Accepted and the
	// load's verification counts.
	Redelivered int64
	// TrustChanged: the file is already loaded, and what is stored of it
	// was verified with other key or schema files (their SHA-256 differ)
	// or strictness. A judging time (--at) or tool version of its own does
	// not count: a nightly job judges by its clock. Reverified says its
	// receipts were verified again with this load's material
	// (LoadOptions.Reverify), which any difference calls for.
	TrustChanged bool
	Reverified   bool
	// Incomplete: the last line has no newline and cannot be read (a
	// producer may be writing it). It is not loaded, and the file is
	// stored up to its last newline, so the load that finds the line whole
	// adds it.
	Incomplete bool
	// Holds are the files rows (file_sha256) that hold the input's
	// content once the load is done, those loaded before included.
	Holds []string
	// Err is why the file could not be loaded: it could not be opened, a
	// read or gzip error stopped it part way, or its already-loaded part
	// has changed (a *dberr.ChangedError). Nothing of such a file is recorded, so
	// a later load retries it.
	Err error
}

// LoadSummary is the outcome of a load.
type LoadSummary struct {
	Files []FileSummary // one per input, in input order
	// Verify counts the verification of the files that were loaded (not
	// those already loaded).
	Verify stream.Summary
	// Trust is the trust_sha256 of the material the load verified with.
	Trust string
	// Skipped are the files the inputs' directories held and the load did
	// not read (their names are not receipt files' names), set by the
	// caller that walked them, for the reports to name.
	Skipped []string
	// Revised are the days whose stored verdicts the load revised
	// (revisions), in order: their reports before the load are stale.
	Revised []RevisedDay
}

// Unreadable is the number of inputs with Err set.
func (s LoadSummary) Unreadable() int {
	n := 0
	for _, f := range s.Files {
		if f.Err != nil {
			n++
		}
	}
	return n
}

// Load verifies files with v and adds them to db, each file in one
// transaction together with its files row (small files several to one
// transaction, which stores all of them or none: fileBatch). A file is
// known by its content (content.go): content already stored, under any
// name, is skipped; a JSON Lines file that has grown since it was loaded
// adds its new lines only; a file whose loaded part has changed is refused with a
// *dberr.ChangedError in its FileSummary. An input that cannot be read is
// reported in its FileSummary and the load goes on; a database error (an
// *dberr.IOError) or a cancelled ctx stops it, and the file being loaded then
// leaves no trace, nor do the small files gathered to be stored with it.
// Files committed before stay loaded.
//
// Chains and nonces are judged across the files verified in this call and
// every receipt stored before (archivePrior), so loading files one day at
// a time, resuming an interrupted load, or loading them all at once gives
// the same verdicts.
//
// Rows are spooled as NDJSON in chunks and inserted with DuckDB's
// read_ndjson while the next chunk is written, all in the file's
// transaction. That path was chosen by measurement over the Go Appender
// (BenchmarkIngest in load_bench_test.go). Memory stays bounded: no file's
// rows are ever all held.
func (db *DB) Load(ctx context.Context, v *verify.Verifier, files []Input, opts LoadOptions) (LoadSummary, error) {
	sum := LoadSummary{Files: make([]FileSummary, len(files))}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return sum, dbErr(ctx, "connect", db.path, err)
	}
	defer conn.Close()
	l, err := db.newLoader(ctx, conn, v, &sum, opts)
	if err != nil {
		return sum, err
	}
	// Identify every input first; only new content is verified.
	if err := l.identifyAll(files); err != nil {
		return sum, err
	}
	if len(l.pending) == 0 {
		return sum, nil
	}
	if err := l.verifyPending(); err != nil {
		return sum, err
	}
	return sum, l.revise()
}

// newLoader records the load's trust material and expected tools.
func (db *DB) newLoader(ctx context.Context, conn *sql.Conn, v *verify.Verifier, sum *LoadSummary, opts LoadOptions) (*loader, error) {
	at := opts.At.UTC()
	if at.IsZero() {
		at = time.Now().UTC()
	}
	var err error
	if sum.Trust, err = recordTrust(ctx, conn, opts.Trust); err != nil {
		return nil, dbErr(ctx, "record trust material", db.path, err)
	}
	if opts.Schemas != nil {
		if err := addExpectedTools(ctx, conn, opts.Schemas); err != nil {
			return nil, dbErr(ctx, "load expected tools", db.path, err)
		}
	}
	l := &loader{ctx: ctx, db: db, conn: conn, opts: opts, sum: sum, at: at, v: v, prior: newArchivePrior(db.sql), batch: &fileBatch{}, seen: map[string]bool{}}
	return l, nil
}

// rejudging are the inputs already stored, whole or in part, whose stored
// receipts are verified again with this load's trust material
// (LoadOptions.Reverify).
type rejudging struct {
	files []*FileSummary
	rows  [][]storedFile
	ins   []Input
}

func (r *rejudging) add(fs *FileSummary, rows []storedFile, in Input) {
	r.files, r.rows, r.ins = append(r.files, fs), append(r.rows, rows), append(r.ins, in)
}

// identifyAll identifies every input by its content: those already
// loaded are reported (or, with LoadOptions.Reverify, verified again),
// the others are pending, to be verified.
func (l *loader) identifyAll(files []Input) error {
	var rj rejudging
	for i, in := range files {
		if err := l.identifyInput(i, in, &rj); err != nil {
			return err
		}
	}
	if len(rj.files) > 0 {
		return l.reverify(l.v, rj.files, rj.rows, rj.ins)
	}
	return nil
}

// identifyInput identifies files[i].
func (l *loader) identifyInput(i int, in Input, rj *rejudging) error {
	fs := &l.sum.Files[i]
	fs.Path, fs.FirstLine = in.Name, 1
	p, err := l.identify(in)
	if err != nil {
		return err
	}
	if p.deferred {
		// New: its content identity comes with its verifying read.
		f := l.newFile(i, in, p)
		l.inCall = append(l.inCall, storedFile{path: in.Name, trust: l.sum.Trust, pending: true, head: p.id.head, firstLine: 1, deferred: f})
		l.pending = append(l.pending, f)
		return nil
	}
	if p.err == nil {
		fs.Size, p.err = storedSize(in, p.id.bytes)
	}
	if p.err != nil {
		fs.Err = p.err
		fs.Size = 0
		l.report(fs)
		return nil
	}
	fs.SHA256 = p.id.sha256
	fs.AlreadyLoaded = l.seen[fs.SHA256] || p.known != nil
	l.seen[fs.SHA256] = true
	for _, r := range p.known {
		fs.Holds = append(fs.Holds, r.sha)
	}
	if fs.AlreadyLoaded {
		other, err := l.trustDiffers(fs, p.known)
		if err != nil {
			return err
		}
		if other && l.opts.Reverify {
			rj.add(fs, p.known, in)
			return nil
		}
		l.report(fs)
		return nil
	}
	return l.identifyNewContent(i, in, p, rj)
}

// identifyNewContent makes files[i], whose content is not stored (a new
// file, or a stored one grown since), pending.
func (l *loader) identifyNewContent(i int, in Input, p plan, rj *rejudging) error {
	fs := &l.sum.Files[i]
	fs.FirstLine, fs.Extends = p.firstLine, p.base
	fs.Holds = []string{fs.SHA256}
	if p.base != "" {
		base, err := chain(l.ctx, l.conn, p.base)
		if err != nil {
			return dbErr(l.ctx, "read files", l.db.path, err)
		}
		for _, r := range base {
			fs.Holds = append(fs.Holds, r.sha)
		}
		other, err := l.trustDiffers(fs, base)
		if err != nil {
			return err
		}
		if other && l.opts.Reverify {
			rj.add(fs, base, in)
		}
	}
	if in.Lines && !p.id.unterminated { // an unterminated one may be stored short of its end
		l.inCall = append(l.inCall, storedFile{sha: p.id.sha256, path: in.Name, base: p.base, bytes: p.id.bytes,
			firstLine: p.firstLine, lines: p.id.lines() - (p.firstLine - 1), unterminated: p.id.unterminated,
			trust: l.sum.Trust, pending: true, head: p.id.head})
	}
	l.pending = append(l.pending, l.newFile(i, in, p))
	return nil
}

// trustDiffers says whether any of rows was verified with other trust
// material than this load's, and marks fs TrustChanged when that material
// differs in its files (otherFiles).
func (l *loader) trustDiffers(fs *FileSummary, rows []storedFile) (bool, error) {
	other := false
	for _, r := range rows {
		if r.trust == l.sum.Trust {
			continue
		}
		other = true
		changed, err := l.otherFiles(r.trust)
		if err != nil {
			return false, err
		}
		if changed {
			fs.TrustChanged = true
		}
	}
	return other, nil
}

// verifyPending verifies the pending inputs in one run into a sink that
// stores them. When an input is rewritten during the run, the files before
// it stay stored, it fails alone, and the rest are verified again
// (retryChanged).
func (l *loader) verifyPending() error {
	var done streamrun.Summary // the files committed by runs that stopped at a changed input
	files := l.pending
	for len(files) > 0 {
		s := l.newSink(files)
		// The rows keep the signature's SHA-256, which the verifying
		// goroutines compute.
		sopts := streamrun.Options{Workers: l.opts.Workers, Progress: l.progress(), Prior: l.prior, PriorBatch: archivePriorBatch, KeepRaw: s.keepRaw}
		vs, err := streamrun.RunTo(l.ctx, l.v, s.sources(), sopts, s)
		if err == nil {
			err = s.finish()
		}
		if err == nil {
			done.Add(vs)
			for _, f := range files {
				switch {
				case f.changed: // not loaded: its records are not counted
					done = subtractCounts(done, f.counts)
				case f.sum.Err == nil: // lines stored before from another file are not counted
					done = subtractCounts(done, f.redelivered)
				}
			}
			break
		}
		if s.cur < len(files) {
			files[s.cur].abort()
		}
		if l.ctx.Err() != nil && !isIOError(err) {
			l.batch.discard()
			return l.ctx.Err()
		}
		if !errors.Is(err, streamrun.ErrInputChanged) {
			l.batch.discard()
			return err
		}
		if files, err = l.retryChanged(s, err, &done); err != nil {
			return err
		}
	}
	l.sum.Verify = stream.Summary(done)
	for _, f := range l.sum.Files {
		if f.Incomplete && l.sum.Verify.Unreadable > 0 {
			// Its last line, still being written, is left for the next
			// load: it is not an unreadable line.
			l.sum.Verify.Unreadable--
		}
	}
	return nil
}

// retryChanged goes on after a run that stopped at an input not the same
// when read again (rewritten in place): the files committed before it
// stay, their counts added to done; it fails alone; and the files not
// yet committed are given back to be verified again without it.
func (l *loader) retryChanged(s *sink, err error, done *streamrun.Summary) ([]*fileLoad, error) {
	if err := l.batch.flush(); err != nil { // the files before the changed one
		return nil, err
	}
	for _, f := range s.files[:s.cur] {
		done.Add(f.counts)
	}
	return l.retryWithout(s.files[s.cur:], changedInput(err, s.files[s.cur:])), nil
}

// changedInput is the file of pending an ErrInputChanged is about: the
// one it names, or else the first (the one being read when the spool ran
// out).
func changedInput(err error, pending []*fileLoad) *fileLoad {
	var se *streamrun.SourceError
	if errors.As(err, &se) {
		for _, f := range pending {
			if f.key == se.Source {
				f.sum.Err = &dberr.InputChangedError{Path: f.in.Name, Line: int64(se.Line) + f.plan.firstLine - 1}
				return f
			}
		}
	}
	f := pending[0]
	f.sum.Err = &dberr.InputChangedError{Path: f.in.Name}
	return f
}

// retryWithout reports the changed file and gives the others of rest as
// new, for another run.
func (l *loader) retryWithout(rest []*fileLoad, changed *fileLoad) []*fileLoad {
	changed.sum.Accepted, changed.sum.Rejected, changed.sum.Lines, changed.sum.Incomplete = 0, 0, 0, false
	changed.sum.Holds = nil
	l.report(changed.sum)
	var next []*fileLoad
	for _, f := range rest {
		if f == changed {
			continue
		}
		f.sum.Accepted, f.sum.Rejected, f.sum.Lines, f.sum.Incomplete = 0, 0, 0, false
		next = append(next, l.newFile(f.idx, f.in, f.plan))
	}
	return next
}

// subtractCounts takes the record counts and reasons of b from a.
func subtractCounts(a, b streamrun.Summary) streamrun.Summary {
	a.Receipts -= b.Receipts
	a.Pass -= b.Pass
	a.Fail -= b.Fail
	a.Incomplete -= b.Incomplete
	a.Unreadable -= b.Unreadable
	a.FilesFailed -= b.FilesFailed
	if len(b.Reasons) > 0 {
		reasons := make(map[verify.Reason]int64, len(a.Reasons))
		for r, n := range a.Reasons {
			if n -= b.Reasons[r]; n > 0 {
				reasons[r] = n
			}
		}
		a.Reasons = reasons
	}
	return a
}

// storedSize is the input's size as stored: its content's, unless Stored
// reads other bytes.
func storedSize(in Input, contentBytes int64) (int64, error) {
	if in.Stored == nil {
		return contentBytes, nil
	}
	rc, err := in.Stored()
	if err != nil {
		return 0, err
	}
	defer rc.Close()
	if st, ok := rc.(interface{ Stat() (os.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err == nil && fi.Mode().IsRegular() {
			return fi.Size(), nil
		}
	}
	return io.Copy(io.Discard, rc)
}

// loader carries one Load: it identifies the inputs, then verifies
// those with new content (pending) into a sink that stores them.
type loader struct {
	ctx     context.Context
	db      *DB
	conn    *sql.Conn
	opts    LoadOptions
	sum     *LoadSummary
	pending []*fileLoad
	at      time.Time // the load's clock (LoadOptions.At)
	v       *verify.Verifier
	// inCall are the JSON Lines inputs to be loaded by this call so far,
	// so that a later input that extends one adds only its own lines.
	inCall []storedFile
	// filesDiffer caches otherFiles by trust_sha256.
	filesDiffer map[string]bool
	// seen are the contents of the inputs identified so far.
	seen map[string]bool
	// prior is the database as the stream's Prior; batch gathers the
	// small files to store together; starts, read once, tell how the
	// stored contents begin (storedStarts).
	prior  *archivePrior
	batch  *fileBatch
	starts *starts
}

// settleEarly identifies a deferred input by a read of its own, before it
// is verified: a later input begins with the same line, and identify
// needs its content identity to tell what that one holds.
func (l *loader) settleEarly(f *fileLoad) error {
	rc, err := f.in.Open()
	var id contentID
	if err == nil {
		id, err = readContent(l.ctx, rc, func(string) ([]int64, error) { return nil, nil })
		rc.Close()
	}
	if l.ctx.Err() != nil {
		return l.ctx.Err()
	}
	i := slices.IndexFunc(l.inCall, func(c storedFile) bool { return c.deferred == f })
	f.plan.deferred = false
	if err != nil {
		// The verifying read meets the error again and reports it.
		l.inCall = slices.Delete(l.inCall, i, i+1)
		return nil
	}
	f.plan.id = id // its head as read now, were it another
	f.identified()
	l.seen[id.sha256] = true
	if id.unterminated { // an unterminated one may be stored short of its end
		l.inCall = slices.Delete(l.inCall, i, i+1)
		return nil
	}
	c := &l.inCall[i]
	c.sha, c.head, c.bytes, c.lines, c.unterminated, c.deferred = id.sha256, id.head, id.bytes, id.lines(), false, nil
	return nil
}

// progress is LoadOptions.Progress as the run's.
func (l *loader) progress() func(streamrun.Progress) {
	if l.opts.Progress == nil {
		return nil
	}
	return func(p streamrun.Progress) { l.opts.Progress(stream.Progress(p)) }
}

func (l *loader) report(s *FileSummary) {
	if l.opts.OnFile != nil {
		l.opts.OnFile(*s)
	}
}

// dbErr wraps a database error as an *dberr.IOError, unless it is the context's
// own cancellation.
func dbErr(ctx context.Context, op, path string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ioe *dberr.IOError
	if errors.As(err, &ioe) {
		return err
	}
	return &dberr.IOError{Op: op, Path: path, Err: err}
}

func isIOError(err error) bool {
	var ioe *dberr.IOError
	return errors.As(err, &ioe)
}
