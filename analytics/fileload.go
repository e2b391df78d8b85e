package analytics

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/receiptverify/verify/internal/helpers/logfamily"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/rawpolicy"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// fileLoad is one file being verified and loaded. Its transaction opens
// with its first record; its receipts are spooled to NDJSON chunks that a
// goroutine inserts into the open transaction while the next chunk is
// written, so verifying, spooling and inserting overlap and at most two
// chunks are on disk. Rejects are few and go in at the end.
type fileLoad struct {
	ctx   context.Context
	idx   int // in the inputs
	in    Input
	plan  plan
	trust string // trust_sha256
	sum   *FileSummary
	key   string // the streamrun.Source name, unique within the run
	lines lineCounter
	ident *identReader // the verifying read of a deferred input (plan.deferred)
	// hashAt is the opening of the input (1 or 2) that counts its lines
	// and hashes it whole: the verifying read, or, when the stream reads
	// the input again for the lines (streamrun.Options.KeepRaw), that read.
	hashAt  int
	tempDir string
	hook    func(context.Context, *FileSummary) error
	v       *verify.Verifier
	conn    *sql.Conn
	chunk   int64 // chunk size
	rawAll  bool  // store every line (RawAll, or an input with no archive)
	// counts are the verification counts of the file's records, for a
	// load whose run stops at another, changed, input and goes on without
	// it.
	counts streamrun.Summary
	// changed: found rewritten at commit, after the run counted its records.
	changed bool
	// redelivered counts the records not stored because their lines are
	// stored already from another file (insertChunk).
	redelivered streamrun.Summary
	// redeliveredDays are the days of the stored receipts those lines
	// are.
	redeliveredDays []string
	// prior is the load's archive; relinks says a receipt of the file
	// may be named by a stored one (archivePrior.namesStored), whose
	// judgment relink then looks at again.
	prior   *archivePrior
	relinks bool
	// batch gathers small files to commit together (fileBatch); rowsSHA
	// is the file_sha256 the file's rows are spooled under, and the
	// chunks inserted as it is read (early) are stored under.
	batch   *fileBatch
	rowsSHA string
	early   bool
	// mem holds the file's first rows, up to batchFileBytes, before they
	// go to the rows spool: a small file's rows never go to a spool of
	// their own (fileBatch); hasRows says it has some.
	mem     []byte
	hasRows bool
	scratch []byte

	tx       *sql.Tx
	loadedAt time.Time  // the load's clock (UTC): files.loaded_at, and the day of undated receipts
	rows     *spool     // the chunk being written
	chunks   chan chunk // to the inserting goroutine; nil when it is not running
	inserted chan error // its outcome
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
		loadedAt: l.at, v: l.v, rawAll: l.opts.Raw == rawpolicy.All || in.NoArchive, prior: l.prior, batch: l.batch}
}

// source is the file as a streamrun.Source named by its key, from past the
// content already stored (a grown file's first plan.skip bytes), whose
// second opening (the verifying pass) counts lines and hashes the whole
// content again, so that a file that changes during the load is not
// recorded under the wrong hash.
func (f *fileLoad) source() streamrun.Source {
	opens := 0
	return streamrun.Source{Name: f.key, Lines: f.in.Lines, Open: func() (io.ReadCloser, error) {
		rc, err := f.in.Open()
		opens++
		if err != nil {
			return rc, err
		}
		var r io.ReadCloser = rc
		if opens == 1 && f.plan.deferred {
			f.ident = newIdentReader(rc)
			r = f.ident
		}
		if opens == f.hashAt {
			f.lines = lineCounter{rc: r, oneDoc: !f.in.Lines}
			if f.ident == nil || f.hashAt == 2 { // on the same read, a deferred input's identReader hashes it
				f.lines.h = sha256.New()
			}
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

// add spools one result and the line it was verified from: a receipts row,
// or a rejects row for an unreadable line. rec says what the stream
// judged of it beyond its result (a delivery again, a chain's start).
func (f *fileLoad) add(res *verify.Result, raw []byte, offset int64, rec *streamrun.Record) error {
	f.settle()
	res.Source = f.in.Name
	if res.Line > 0 {
		res.Line += int(f.plan.firstLine - 1)
		offset += f.plan.skip // the source starts past the content stored before
	}
	f.count(res)
	switch {
	case f.sum.Err != nil:
		return nil
	case res.Line == 0: // the source could not be opened
		f.sum.Err = errors.New(res.Error)
		return nil
	case rec != nil && rec.FileError:
		// The source could not be read on from this line (a bound
		// reached: a gzip of a million blank lines): not stored in part.
		f.sum.Err = fmt.Errorf("line %d: %s", res.Line, res.Error)
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
				return &dberr.IOError{Op: "spool", Path: f.in.Name, Err: err}
			}
			f.rejects = sp
		}
		return f.rejects.add(func(b []byte) []byte { return appendRejectRow(b, res, raw) })
	}
	f.sum.Accepted++
	if !f.relinks && (f.prior == nil || f.prior.namesStored(res.Fingerprints.ChainHash)) && res.Fingerprints.ChainHash != "" {
		f.relinks = true
	}
	if rec != nil && rec.Duplicate {
		f.sum.Duplicates++
	}
	if rec != nil && rec.ChainOutside {
		f.sum.ChainsOutside++
	}
	if !f.hasRows {
		f.hasRows, f.rowsSHA = true, f.sum.SHA256
	}
	var row []byte
	if rec != nil {
		row = rec.Rendered // encoded on a verifying goroutine (render)
	}
	if row == nil {
		withRaw := f.rawAll || res.Verdict != verify.Pass
		var flags deliveryFlags
		if rec != nil {
			flags = deliveryFlags{duplicate: rec.Duplicate, chainOutside: rec.ChainOutside}
		}
		line := lineOf(raw)
		if rec != nil {
			line = recordLine(rec)
		}
		f.scratch = appendReceiptRowAt(f.scratch[:0], res, int64(res.Line), line, offset, withRaw, flags)
		row = f.scratch
		if cap(f.scratch) > 1<<20 {
			f.scratch = nil // a long line's row is not kept
		}
	}
	if err := f.writeRow(row); err != nil {
		return err
	}
	if f.rows != nil && f.rows.size >= f.chunk {
		f.early = true
		return f.flushChunk(f.rowsSHA)
	}
	return nil
}

// writeRow adds one encoded row: to mem while the file's rows fit in
// batchFileBytes, else to the rows spool.
func (f *fileLoad) writeRow(row []byte) error {
	if f.rows == nil && len(f.mem)+len(row) <= batchFileBytes {
		f.mem = append(f.mem, row...)
		return nil
	}
	if err := f.spill(); err != nil {
		return err
	}
	return f.rows.write(row)
}

// spill moves the rows held in mem to the rows spool, creating it.
func (f *fileLoad) spill() error {
	if f.rows == nil {
		sp, err := newSpool(f.tempDir)
		if err != nil {
			return &dberr.IOError{Op: "spool", Path: f.in.Name, Err: err}
		}
		f.rows = sp
	}
	if err := eachRow(f.mem, f.rows.write); err != nil {
		return err
	}
	f.mem = nil
	return nil
}

// eachRow calls fn with each row of rows (fileLoad.mem), its newline
// included.
func eachRow(rows []byte, fn func(row []byte) error) error {
	for len(rows) > 0 {
		i := bytes.IndexByte(rows, '\n') + 1
		if i == 0 {
			i = len(rows)
		}
		if err := fn(rows[:i]); err != nil {
			return err
		}
		rows = rows[i:]
	}
	return nil
}

// settle gives a deferred input (plan.deferred) its content identity from
// its verifying read, once that read is done: the first pass has read
// every input before the second emits a record. A read that stopped short
// of the end (a file of too many lines) is completed by a read of its own.
func (f *fileLoad) settle() {
	if !f.plan.deferred {
		return
	}
	f.plan.deferred = false
	r := f.ident
	switch {
	case r == nil: // never opened: its records say why
		return
	case r.err != nil:
		f.sum.Err = r.err
		return
	case !r.eof:
		rc, err := f.in.Open()
		var id contentID
		if err == nil {
			id, err = readContent(f.ctx, rc, func(string) ([]int64, error) { return nil, nil })
			rc.Close()
		}
		if err != nil {
			f.sum.Err = err
			return
		}
		f.plan.id = id
	default:
		f.plan.id = r.contentID(f.plan.id.head)
	}
	f.identified()
}

// identified fills the file's summary from its content identity, once
// known, as Load does for an input identified before it is verified.
func (f *fileLoad) identified() {
	s := f.sum
	size, err := storedSize(f.in, f.plan.id.bytes)
	if err != nil {
		s.Err = err
		return
	}
	s.Size, s.SHA256 = size, f.plan.id.sha256
	s.Holds = []string{s.SHA256}
}

// render encodes the receipts row of a verified record as add would,
// on a verifying goroutine (streamrun.Options.RenderRecord): the row and its
// line's SHA-256 cost the goroutine that emits nothing. It returns nil
// for a record add encodes itself or does not store.
func (f *fileLoad) render(dst []byte, rec *streamrun.Record) []byte {
	res := rec.Result
	if res.Line == 0 || res.Verdict == verify.Unreadable {
		return nil
	}
	withRaw := f.rawAll || res.Verdict != verify.Pass
	flags := deliveryFlags{duplicate: rec.Duplicate, chainOutside: rec.ChainOutside}
	return appendReceiptRowAt(dst, res, int64(res.Line)+f.plan.firstLine-1, recordLine(rec), rec.Offset+f.plan.skip, withRaw, flags)
}

// recordLine is the record's line: read again (Raw), or as the first
// pass kept it (keepLine).
func recordLine(rec *streamrun.Record) keptLine {
	if rec.Raw == nil && rec.Kept != nil {
		return parseKept(rec.Kept)
	}
	return lineOf(rec.Raw)
}

// count adds one result to the file's counts, as streamrun.Summary counts it.
func (f *fileLoad) count(res *verify.Result) {
	c := &f.counts
	switch {
	case res.Line == 0:
		c.FilesFailed++
		return
	case res.Verdict == verify.Unreadable:
		c.Unreadable++
		return
	case res.Verdict == verify.Pass:
		c.Pass++
	case res.Verdict == verify.Fail:
		c.Fail++
	default:
		c.Incomplete++
		if verify.IsUnknownFormat(res) {
			c.UnknownFormat++
		}
	}
	c.Receipts++
}

// begin opens the file's transaction and starts the inserting goroutine,
// once, after committing the small files before it (fileBatch).
func (f *fileLoad) begin() error {
	if f.tx != nil {
		return nil
	}
	if err := f.batch.flush(); err != nil {
		return err
	}
	tx, err := f.conn.BeginTx(f.ctx, nil)
	if err != nil {
		return dbErr(f.ctx, "begin", f.in.Name, err)
	}
	f.tx = tx
	f.chunks = make(chan chunk)
	f.inserted = make(chan error, 1)
	// The file's own content: this file_sha256 and the stored content it
	// extends.
	sha := cmp.Or(f.rowsSHA, f.sum.SHA256)
	own := append([]string{sha}, f.sum.Holds...)
	go func(chunks <-chan chunk, source, loadDay, trust string) {
		var err error
		for c := range chunks {
			if err == nil {
				err = f.insertChunk(tx, c.rows, own, c.sha, source, loadDay, trust)
			}
			c.rows.remove()
		}
		f.inserted <- err
	}(f.chunks, f.sum.Path, f.loadedAt.Format(time.DateOnly), f.trust)
	return nil
}

// insertChunk inserts one receipts chunk but for the lines stored already
// from a file not among own (notRedelivered), whose counts and days it
// adds to f.redelivered and f.redeliveredDays. Such lines are looked for
// first, and the insert leaves them out only when there are some: an
// INSERT with the anti-join is slower than the look-up. It runs on the
// inserting goroutine; finish reads what it adds once that goroutine is
// done (wait).
func (f *fileLoad) insertChunk(tx *sql.Tx, sp *spool, own []string, sha, source, loadDay, trust string) error {
	rows, err := tx.QueryContext(f.ctx, "SELECT s.verdict, array_to_string(s.reasons, ','), COALESCE(s.duplicate, false), COALESCE(s.chain_outside, false) FROM "+sp.read(receiptColumns)+redeliveredRows(own))
	if err != nil {
		return err
	}
	defer rows.Close()
	var found int64
	c := &f.redelivered
	for rows.Next() {
		var verdict string
		var reasons sql.NullString
		var duplicate, outside bool
		if err := rows.Scan(&verdict, &reasons, &duplicate, &outside); err != nil {
			return err
		}
		found++
		if duplicate {
			c.Duplicates++
		}
		if outside {
			c.ChainsOutside++
		}
		switch verify.Verdict(verdict) {
		case verify.Pass:
			c.Pass++
		case verify.Fail:
			c.Fail++
		default:
			c.Incomplete++
			if reasons.String == string(verify.ReasonUnknownFormat) {
				c.UnknownFormat++
			}
		}
		c.Receipts++
		if reasons.String != "" {
			if c.Reasons == nil {
				c.Reasons = map[verify.Reason]int64{}
			}
			for _, r := range strings.Split(reasons.String, ",") {
				c.Reasons[verify.Reason(r)]++
			}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if found == 0 {
		_, err = tx.ExecContext(f.ctx, receiptInsert+sp.read(receiptColumns), sha, source, loadDay, trust)
		return err
	}
	days, err := tx.QueryContext(f.ctx, "SELECT DISTINCT CAST(r.day AS VARCHAR) FROM "+sp.read(receiptColumns)+redeliveredDays(own))
	if err != nil {
		return err
	}
	defer days.Close()
	for days.Next() {
		var d sql.NullString
		if err := days.Scan(&d); err != nil {
			return err
		}
		if d.Valid && !slices.Contains(f.redeliveredDays, d.String) {
			f.redeliveredDays = append(f.redeliveredDays, d.String)
		}
	}
	if err := days.Err(); err != nil {
		return err
	}
	_, err = tx.ExecContext(f.ctx, receiptInsert+sp.read(receiptColumns)+notRedelivered(own), sha, source, loadDay, trust)
	return err
}

// chunk is a spool of receipts rows and the file_sha256 they are stored
// under.
type chunk struct {
	rows *spool
	sha  string
}

// flushChunk hands the current receipts chunk to the inserting goroutine,
// to be stored under sha, waiting while it inserts the one before.
func (f *fileLoad) flushChunk(sha string) error {
	if err := f.begin(); err != nil {
		return err
	}
	if err := f.spill(); err != nil {
		return err
	}
	sp := f.rows
	f.rows = nil
	if err := sp.close(); err != nil {
		sp.remove()
		return &dberr.IOError{Op: "spool", Path: f.in.Name, Err: err}
	}
	f.chunks <- chunk{rows: sp, sha: sha}
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
	f.settle()
	s := f.sum
	if s.Err == nil && f.lines.err != nil {
		s.Err = f.lines.err
	}
	if s.Err != nil { // not read to its end: nothing recorded
		f.abort()
		if err := f.batch.flush(); err != nil { // the files before it are reported first
			return err
		}
		s.Lines, s.Accepted, s.Rejected = 0, 0, 0
		if onFile != nil {
			onFile(*s)
		}
		return nil
	}
	s.Lines = f.lines.count() - (f.plan.firstLine - 1)
	if f.lines.h != nil && f.lines.eof {
		if got := hex.EncodeToString(f.lines.h.Sum(nil)); got != f.plan.id.sha256 || f.lines.n != f.plan.id.bytes {
			// Rewritten between its readings: that file's error.
			f.abort()
			if err := f.batch.flush(); err != nil {
				return err
			}
			f.changed = true
			s.Err = &dberr.InputChangedError{Path: f.in.Name}
			s.Lines, s.Accepted, s.Rejected, s.Incomplete = 0, 0, 0, false
			if onFile != nil {
				onFile(*s)
			}
			return nil
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
			if err := f.batch.flush(); err != nil {
				return err
			}
			s.Holds = s.Holds[1:]
			s.AlreadyLoaded = len(s.Holds) > 0
			if onFile != nil {
				onFile(*s)
			}
			return nil
		}
	}
	if f.batchable() {
		return f.batch.add(f, onFile)
	}
	return f.store(storedBytes, unterminated, onFile)
}

// store inserts the rest of the file's rows and its files row, in its
// own transaction, and commits. storedBytes and unterminated are what of
// its content is stored.
func (f *fileLoad) store(storedBytes int64, unterminated bool, onFile func(FileSummary)) error {
	s := f.sum
	err := f.begin()
	if err == nil && (f.rows != nil || f.mem != nil) {
		err = f.flushChunk(s.SHA256)
	}
	if werr := f.wait(); err == nil {
		err = werr
	}
	if err == nil && f.redelivered.Receipts > 0 {
		s.Accepted -= f.redelivered.Receipts
		s.Duplicates -= f.redelivered.Duplicates
		s.ChainsOutside -= f.redelivered.ChainsOutside
		s.Redelivered = f.redelivered.Receipts
		f.counts = subtractCounts(f.counts, f.redelivered)
	}
	if err == nil && f.early && f.rowsSHA != s.SHA256 {
		err = f.rekeyEarly()
	}
	if err == nil && !f.rawAll && s.Accepted > 0 {
		err = f.fillFlagged(s.SHA256)
	}
	if err == nil && f.rejects != nil {
		if err = f.rejects.close(); err == nil {
			_, err = f.tx.ExecContext(f.ctx, rejectInsert+f.rejects.read(rejectColumns), s.SHA256, s.Path)
		}
	}
	if err == nil {
		_, err = f.tx.ExecContext(f.ctx, filesInsert, f.filesRowArgs(storedBytes, unterminated)...)
	}
	if err == nil && f.relinks {
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

// filesRowArgs are the values of the file's files row (filesRow), which
// stores storedBytes of its content, unterminated saying whether the
// last line stored lacks its newline.
func (f *fileLoad) filesRowArgs(storedBytes int64, unterminated bool) []any {
	s := f.sum
	return []any{s.SHA256, s.Path, s.Size, s.Lines, s.Accepted, s.Rejected, f.loadedAt,
		storedBytes, f.plan.firstLine, f.plan.base, f.plan.id.head, unterminated, f.trust, s.Redelivered,
		strings.Join(slices.Sorted(slices.Values(f.redeliveredDays)), ","), logfamily.Of(s.Path)}
}

// rekeyEarly stores the rows of the chunks inserted as the file was read,
// under rowsSHA (the whole content's SHA-256), under the file_sha256 of
// what is stored: the content up to its last newline, when the last line
// turned out incomplete. The rows are inserted again and the old ones
// deleted, as an UPDATE would hold every changed row in DuckDB's memory
// until COMMIT (the rows of a 3M-receipt log took a 512MB load out of
// it). The last chunk, inserted once the file was read through, is
// stored under the right one to begin with, so a file of one chunk (2
// GiB of rows) is never rekeyed.
func (f *fileLoad) rekeyEarly() error {
	_, err := f.tx.ExecContext(f.ctx, `INSERT INTO receipts SELECT * REPLACE ($1 AS file_sha256) FROM receipts WHERE file_sha256 = $2`, f.sum.SHA256, f.rowsSHA)
	if err == nil {
		_, err = f.tx.ExecContext(f.ctx, `DELETE FROM receipts WHERE file_sha256 = $1`, f.rowsSHA)
	}
	return err
}

// abort rolls back the file's transaction, if open, and removes its spools.
func (f *fileLoad) abort() {
	f.mem = nil
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
