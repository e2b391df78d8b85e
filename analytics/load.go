package analytics

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"hash"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

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
	// Progress, if set, is called as records are verified (stream.Options).
	Progress func(stream.Progress)
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
	// TrustChanged: the file is already loaded, and what is stored of it
	// was verified with other trust material (keys, schemas, --at,
	// --strict-schemas or tool version). Reverified says its receipts were
	// verified again with this load's (LoadOptions.Reverify).
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
	// has changed (a *ChangedError). Nothing of such a file is recorded, so
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
// transaction together with its files row. A file is known by its content
// (content.go): content already stored, under any name, is skipped; a
// JSON Lines file that has grown since it was loaded adds its new lines
// only; a file whose loaded part has changed is refused with a
// *ChangedError in its FileSummary. An input that cannot be read is
// reported in its FileSummary and the load goes on; a database error (an
// *IOError) or a cancelled ctx stops it, and the file being loaded then
// leaves no trace. Files loaded before stay loaded.
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
func Load(ctx context.Context, db *DB, v *verify.Verifier, files []Input, opts LoadOptions) (LoadSummary, error) {
	sum := LoadSummary{Files: make([]FileSummary, len(files))}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return sum, dbErr(ctx, "connect", db.path, err)
	}
	defer conn.Close()
	at := opts.At.UTC()
	if at.IsZero() {
		at = time.Now().UTC()
	}
	if sum.Trust, err = recordTrust(ctx, conn, opts.Trust); err != nil {
		return sum, dbErr(ctx, "record trust material", db.path, err)
	}
	if opts.Schemas != nil {
		if err := addExpectedTools(ctx, conn, opts.Schemas); err != nil {
			return sum, dbErr(ctx, "load expected tools", db.path, err)
		}
	}

	// Identify every input first; only new content is verified.
	l := &loader{ctx: ctx, db: db, conn: conn, opts: opts, sum: &sum, at: at, v: v}
	if err := conn.QueryRowContext(ctx, "SELECT count(*) > 0 FROM files WHERE content_bytes IS NULL").Scan(&l.legacy); err != nil {
		return sum, dbErr(ctx, "read files", db.path, err)
	}
	if l.legacy {
		if _, err := conn.ExecContext(ctx, backfillNonceKeys); err != nil {
			return sum, dbErr(ctx, "key stored nonces", db.path, err)
		}
	}
	seen := map[string]bool{}
	var rejudge []*FileSummary
	var rejudgeRows [][]storedFile
	for i, in := range files {
		fs := &sum.Files[i]
		fs.Path, fs.FirstLine = in.Name, 1
		p, err := l.identify(in)
		if err != nil {
			return sum, err
		}
		if p.err == nil {
			fs.Size, p.err = storedSize(in, p.id.bytes)
		}
		if p.err != nil {
			fs.Err = p.err
			fs.Size = 0
			l.report(fs)
			continue
		}
		fs.SHA256 = p.id.sha256
		if seen[fs.SHA256] || p.known != nil {
			fs.AlreadyLoaded = true
		}
		seen[fs.SHA256] = true
		for _, r := range p.known {
			fs.Holds = append(fs.Holds, r.sha)
		}
		if fs.AlreadyLoaded {
			for _, r := range p.known {
				if r.trust != sum.Trust {
					fs.TrustChanged = true
				}
			}
			if fs.TrustChanged && opts.Reverify {
				rejudge, rejudgeRows = append(rejudge, fs), append(rejudgeRows, p.known)
				continue
			}
			l.report(fs)
			continue
		}
		fs.FirstLine, fs.Extends = p.firstLine, p.base
		fs.Holds = []string{fs.SHA256}
		if p.base != "" {
			base, err := chain(ctx, conn, p.base)
			if err != nil {
				return sum, dbErr(ctx, "read files", db.path, err)
			}
			for _, r := range base {
				fs.Holds = append(fs.Holds, r.sha)
				if r.trust != sum.Trust {
					fs.TrustChanged = true
				}
			}
			if fs.TrustChanged && opts.Reverify {
				rejudge, rejudgeRows = append(rejudge, fs), append(rejudgeRows, base)
			}
		}
		if in.Lines && !p.id.unterminated { // an unterminated one may be stored short of its end
			l.inCall = append(l.inCall, storedFile{sha: p.id.sha256, path: in.Name, base: p.base, bytes: p.id.bytes,
				firstLine: p.firstLine, lines: p.id.lines() - (p.firstLine - 1), unterminated: p.id.unterminated,
				trust: sum.Trust, pending: true, head: p.id.head})
		}
		l.pending = append(l.pending, l.newFile(i, in, p))
	}
	if len(rejudge) > 0 {
		if err := l.reverify(v, rejudge, rejudgeRows); err != nil {
			return sum, err
		}
	}
	if len(l.pending) == 0 {
		return sum, nil
	}

	srcs := make([]stream.Source, len(l.pending))
	for i, f := range l.pending {
		srcs[i] = f.source()
	}
	// The rows keep the signature text itself, not its SHA-256.
	sopts := stream.Options{Workers: opts.Workers, KeepRaw: true, OmitSignatureHash: true, Progress: opts.Progress, Prior: archivePrior{db.sql}}
	vs, err := stream.Run(ctx, v, srcs, sopts, l.emit)
	sum.Verify = vs
	if err == nil {
		err = l.finishRest()
	}
	if err != nil {
		if l.cur < len(l.pending) {
			l.pending[l.cur].abort()
		}
		if ctx.Err() != nil && !isIOError(err) {
			return sum, ctx.Err()
		}
		return sum, err
	}
	return sum, nil
}

// backfillNonceKeys gives receipts stored before receipts.nonce_key existed
// their key, so that later loads find their nonces: stream.NonceDigest of
// the issuer (or, without one, the org), a NUL and the nonce
// (TestNonceKeyBackfill checks that the two agree).
const backfillNonceKeys = `UPDATE receipts
SET nonce_key = substr(sha256(COALESCE(NULLIF(issuer_id, ''), org_id, '') || chr(0) || nonce), 1, 32)
WHERE nonce_key IS NULL AND nonce IS NOT NULL AND nonce <> ''`

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

// loader carries one Load through stream.Run's emit calls, which arrive in
// input order: the records of pending[cur] until the first record of a later
// file ends it.
type loader struct {
	ctx     context.Context
	db      *DB
	conn    *sql.Conn
	opts    LoadOptions
	sum     *LoadSummary
	pending []*fileLoad
	cur     int
	at      time.Time // the load's clock (LoadOptions.At)
	v       *verify.Verifier
	// inCall are the JSON Lines inputs to be loaded by this call so far,
	// so that a later input that extends one adds only its own lines.
	inCall []storedFile
	// legacy: the database holds files rows written before content
	// identity, which know a gzip file by its compressed bytes.
	legacy bool
}

// fileLoad is one file being verified and loaded. Its transaction opens
// with its first record; its receipts are spooled to NDJSON chunks that a
// goroutine inserts into the open transaction while the next chunk is
// written, so verifying, spooling and inserting overlap and at most two
// chunks are on disk. Rejects are few and go in at the end.
type fileLoad struct {
	ctx     context.Context
	idx     int // in the inputs
	in      Input
	plan    plan
	trust   string // trust_sha256
	sum     *FileSummary
	key     string // the stream.Source name, unique within the run
	lines   lineCounter
	tempDir string
	hook    func(context.Context, *FileSummary) error
	v       *verify.Verifier
	conn    *sql.Conn
	chunk   int64 // chunk size

	tx       *sql.Tx
	loadedAt time.Time   // the load's clock (UTC): files.loaded_at, and the day of undated receipts
	rows     *spool      // the chunk being written
	chunks   chan *spool // to the inserting goroutine; nil when it is not running
	inserted chan error  // its outcome
	rejects  *spool
}

// defaultChunkBytes is the size at which a receipts spool chunk is handed
// to the inserting goroutine. It is large on purpose: an INSERT that
// brings DuckDB whole row groups (122,880 rows; 2 GiB holds about three
// of ML-DSA receipts, more of smaller ones) has them compressed and written
// as it goes, on all threads, where many small INSERTs leave every row
// group to be compressed on one thread at COMMIT. At 1M receipts that
// made the load 1.5x faster than with 16 MiB chunks
// (BenchmarkLoad1M: 2.7x the time of read_ndjson instead of 4.0x).
const defaultChunkBytes = 2 << 30

func (l *loader) newFile(idx int, in Input, p plan) *fileLoad {
	return &fileLoad{ctx: l.ctx, idx: idx, in: in, plan: p, trust: l.sum.Trust, sum: &l.sum.Files[idx], key: strconv.Itoa(idx),
		tempDir: l.opts.TempDir, hook: l.opts.beforeCommit, conn: l.conn, chunk: cmp.Or(l.opts.chunkBytes, defaultChunkBytes),
		loadedAt: l.at, v: l.v}
}

// source is the file as a stream.Source named by its key, from past the
// content already stored (a grown file's first plan.skip bytes), whose
// second opening (the verifying pass) counts lines and hashes the whole
// content again, so that a file that changes during the load is not
// recorded under the wrong hash.
func (f *fileLoad) source() stream.Source {
	opens := 0
	return stream.Source{Name: f.key, Lines: f.in.Lines, Open: func() (io.ReadCloser, error) {
		rc, err := f.in.Open()
		opens++
		if err != nil {
			return rc, err
		}
		var r io.ReadCloser = rc
		if opens == 2 {
			f.lines = lineCounter{rc: rc, oneDoc: !f.in.Lines, h: sha256.New()}
			r = &f.lines
		}
		if f.plan.skip > 0 {
			if _, err := io.CopyN(io.Discard, r, f.plan.skip); err != nil {
				rc.Close()
				if err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return nil, err
			}
		}
		return r, nil
	}}
}

// emit routes one result to its file.
func (l *loader) emit(rec *stream.Record) error {
	for l.pending[l.cur].key != rec.Source {
		if err := l.pending[l.cur].finish(l.opts.OnFile); err != nil {
			return err
		}
		l.cur++
	}
	return l.pending[l.cur].add(rec.Result, rec.Raw)
}

// finishRest commits the files after the last one that had records.
func (l *loader) finishRest() error {
	for ; l.cur < len(l.pending); l.cur++ {
		if err := l.pending[l.cur].finish(l.opts.OnFile); err != nil {
			return err
		}
	}
	return nil
}

func (l *loader) report(s *FileSummary) {
	if l.opts.OnFile != nil {
		l.opts.OnFile(*s)
	}
}

// add spools one result and the line it was verified from: a receipts row,
// or a rejects row for an unreadable line.
func (f *fileLoad) add(res *verify.Result, raw []byte) error {
	res.Source = f.in.Name
	if res.Line > 0 {
		res.Line += int(f.plan.firstLine - 1)
	}
	switch {
	case f.sum.Err != nil:
		return nil
	case res.Line == 0: // the source could not be opened
		f.sum.Err = errors.New(res.Error)
		return nil
	case res.Verdict == verify.Unreadable && f.in.Lines && f.plan.id.unterminated && int64(res.Line) == f.plan.id.lines():
		// The last line, without a newline, cannot be read: a producer
		// may be writing it. It is left for the load that finds it whole.
		f.sum.Incomplete = true
		return nil
	case res.Verdict == verify.Unreadable:
		f.sum.Rejected++
		if f.rejects == nil {
			sp, err := newSpool(f.tempDir)
			if err != nil {
				return &IOError{Op: "spool", Path: f.in.Name, Err: err}
			}
			f.rejects = sp
		}
		return f.rejects.add(func(b []byte) []byte { return appendRejectRow(b, res, raw) })
	}
	f.sum.Accepted++
	if f.rows == nil {
		if err := f.begin(); err != nil {
			return err
		}
		sp, err := newSpool(f.tempDir)
		if err != nil {
			return &IOError{Op: "spool", Path: f.in.Name, Err: err}
		}
		f.rows = sp
	}
	if err := f.rows.add(func(b []byte) []byte { return appendReceiptRow(b, res, raw) }); err != nil {
		return err
	}
	if f.rows.size >= f.chunk {
		return f.flushChunk()
	}
	return nil
}

// begin opens the file's transaction and starts the inserting goroutine,
// once.
func (f *fileLoad) begin() error {
	if f.tx != nil {
		return nil
	}
	tx, err := f.conn.BeginTx(f.ctx, nil)
	if err != nil {
		return dbErr(f.ctx, "begin", f.in.Name, err)
	}
	f.tx = tx
	f.chunks = make(chan *spool)
	f.inserted = make(chan error, 1)
	go func(chunks <-chan *spool, sha, source, loadDay, trust string) {
		var err error
		for sp := range chunks {
			if err == nil {
				_, err = tx.ExecContext(f.ctx, receiptInsert+sp.read(receiptColumns), sha, source, loadDay, trust)
			}
			sp.remove()
		}
		f.inserted <- err
	}(f.chunks, f.sum.SHA256, f.sum.Path, f.loadedAt.Format(time.DateOnly), f.trust)
	return nil
}

// flushChunk hands the current receipts chunk to the inserting goroutine,
// waiting while it inserts the one before.
func (f *fileLoad) flushChunk() error {
	sp := f.rows
	f.rows = nil
	if err := sp.close(); err != nil {
		sp.remove()
		return &IOError{Op: "spool", Path: f.in.Name, Err: err}
	}
	f.chunks <- sp
	return nil
}

// wait stops the inserting goroutine and returns its outcome.
func (f *fileLoad) wait() error {
	if f.chunks == nil {
		return nil
	}
	close(f.chunks)
	f.chunks = nil
	return <-f.inserted
}

// finish inserts the rest of one file's rows and its files row and commits,
// or, for a file not read to its end, rolls back.
func (f *fileLoad) finish(onFile func(FileSummary)) error {
	s := f.sum
	if s.Err == nil && f.lines.err != nil {
		s.Err = f.lines.err
	}
	if s.Err != nil { // not read to its end: nothing recorded
		f.abort()
		s.Lines, s.Accepted, s.Rejected = 0, 0, 0
		if onFile != nil {
			onFile(*s)
		}
		return nil
	}
	s.Lines = f.lines.count() - (f.plan.firstLine - 1)
	if f.lines.h != nil && f.lines.eof {
		if got := hex.EncodeToString(f.lines.h.Sum(nil)); got != f.plan.id.sha256 || f.lines.n != f.plan.id.bytes {
			f.abort()
			return &IOError{Op: "load", Path: f.in.Name, Err: errors.New("the file changed while it was loaded; nothing recorded")}
		}
	}
	// What is stored: the whole content, or, without its incomplete last
	// line, the content up to its last newline.
	id := &f.plan.id
	storedBytes, unterminated := id.bytes, id.unterminated
	if s.Incomplete {
		s.Lines--
		s.SHA256, storedBytes, unterminated = id.aligned, id.alignedBytes, false
		s.Holds[0] = s.SHA256
		if s.Lines == 0 { // nothing but that line is new
			f.abort()
			s.Holds = s.Holds[1:]
			s.AlreadyLoaded = len(s.Holds) > 0
			if onFile != nil {
				onFile(*s)
			}
			return nil
		}
	}
	err := f.begin()
	if err == nil && f.rows != nil {
		err = f.flushChunk()
	}
	if werr := f.wait(); err == nil {
		err = werr
	}
	if err == nil && s.Incomplete && s.Accepted > 0 {
		_, err = f.tx.ExecContext(f.ctx, "UPDATE receipts SET file_sha256 = $1 WHERE file_sha256 = $2", s.SHA256, id.sha256)
	}
	if err == nil && f.rejects != nil {
		if err = f.rejects.close(); err == nil {
			_, err = f.tx.ExecContext(f.ctx, rejectInsert+f.rejects.read(rejectColumns), s.SHA256, s.Path)
		}
	}
	if err == nil {
		_, err = f.tx.ExecContext(f.ctx,
			`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at,
				content_bytes, first_line, base_sha256, head_sha256, unterminated, trust_sha256)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, NULLIF($10, ''), $11, $12, $13)`,
			s.SHA256, s.Path, s.Size, s.Lines, s.Accepted, s.Rejected, f.loadedAt,
			storedBytes, f.plan.firstLine, f.plan.base, id.head, unterminated, f.trust)
	}
	if err == nil {
		err = f.relink()
	}
	if err == nil && f.hook != nil {
		err = f.hook(f.ctx, s)
	}
	if err == nil {
		err = f.tx.Commit()
		f.tx = nil
	}
	if err != nil {
		f.abort()
		return dbErr(f.ctx, "load", f.in.Name, err)
	}
	f.abort() // removes the spools; the transaction is done
	if onFile != nil {
		onFile(*s)
	}
	return nil
}

// abort rolls back the file's transaction, if open, and removes its spools.
func (f *fileLoad) abort() {
	if f.rows != nil {
		f.rows.remove()
		f.rows = nil
	}
	f.wait()
	if f.tx != nil {
		f.tx.Rollback()
		f.tx = nil
	}
	if f.rejects != nil {
		f.rejects.remove()
		f.rejects = nil
	}
}

// read is the read_ndjson call over the spool. The path is ours
// (os.CreateTemp), quoted as an SQL string literal. maximum_object_size
// fits the longest row written; the default is kept when it does, as a
// larger one makes DuckDB read with larger buffers.
func (s *spool) read(columns string) string {
	return "read_ndjson('" + strings.ReplaceAll(s.path, "'", "''") + "', columns=" + columns +
		", format='newline_delimited', maximum_object_size=" + strconv.FormatInt(max(s.longest+1, defaultMaxObject), 10) + ")"
}

// defaultMaxObject is DuckDB's default maximum_object_size.
const defaultMaxObject = 16 << 20

// spool is a temporary NDJSON file of rows, written through a buffer so a
// file's rows are never all in memory.
type spool struct {
	path    string
	f       *os.File
	w       *bufio.Writer
	buf     []byte
	size    int64
	longest int64 // the longest row
}

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, spoolPattern()) // named for RemoveStaleSpools
	if err != nil {
		return nil, err
	}
	return &spool{path: f.Name(), f: f, w: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (s *spool) add(row func([]byte) []byte) error {
	s.buf = row(s.buf[:0])
	s.size += int64(len(s.buf))
	s.longest = max(s.longest, int64(len(s.buf)))
	if _, err := s.w.Write(s.buf); err != nil {
		return &IOError{Op: "spool", Path: s.path, Err: err}
	}
	if cap(s.buf) > 1<<20 {
		s.buf = nil // do not keep a huge line's buffer
	}
	return nil
}

func (s *spool) close() error {
	err := s.w.Flush()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}

func (s *spool) remove() {
	s.f.Close()
	os.Remove(s.path)
}

// hashFile reads a file's stored bytes once for its SHA-256 and size.
func hashFile(open func() (io.ReadCloser, error)) (string, int64, error) {
	rc, err := open()
	if err != nil {
		return "", 0, err
	}
	defer rc.Close()
	h := sha256.New()
	n, err := io.Copy(h, rc)
	if err != nil {
		return "", 0, err
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}

// lineCounter counts the lines stream reads from a source as stream
// numbers them (every '\n', plus a last line without one) and notes how
// reading ended.
type lineCounter struct {
	rc      io.ReadCloser
	h       hash.Hash // nil: do not hash
	n       int64
	newline int64
	last    byte
	oneDoc  bool // not JSON Lines: the whole source is line 1
	eof     bool
	err     error // a read error other than io.EOF
}

func (c *lineCounter) Read(p []byte) (int, error) {
	n, err := c.rc.Read(p)
	if n > 0 {
		c.n += int64(n)
		c.last = p[n-1]
		for _, b := range p[:n] {
			if b == '\n' {
				c.newline++
			}
		}
		if c.h != nil {
			c.h.Write(p[:n])
		}
	}
	switch {
	case err == io.EOF:
		c.eof = true
	case err != nil && c.err == nil:
		c.err = err
	}
	return n, err
}

func (c *lineCounter) Close() error { return c.rc.Close() }

func (c *lineCounter) count() int64 {
	if c.rc == nil { // never opened for verifying
		return 0
	}
	if c.oneDoc {
		return 1
	}
	if c.n > 0 && c.last != '\n' {
		return c.newline + 1
	}
	return c.newline
}

// dbErr wraps a database error as an *IOError, unless it is the context's
// own cancellation.
func dbErr(ctx context.Context, op, path string, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ioe *IOError
	if errors.As(err, &ioe) {
		return err
	}
	return &IOError{Op: op, Path: path, Err: err}
}

func isIOError(err error) bool {
	var ioe *IOError
	return errors.As(err, &ioe)
}
