package shard

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/receiptverify/verify/analytics"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
)

// partRows is how many records one Parquet part holds: the rows wait in
// an in-memory table until then, so memory stays bounded (a few hundred
// MB at most) however large the shard.
var partRows int64 = 1 << 16

// groupRows is how many records a row group of a part holds: the fold
// reads a part one row group at a time.
var groupRows = 1 << 13

// recordsTable is the columns of records-NNNNN.parquet (see the package
// documentation).
const recordsTable = `CREATE TABLE records (
	ord BIGINT NOT NULL, source VARCHAR NOT NULL, line BIGINT NOT NULL,
	format VARCHAR NOT NULL, verdict VARCHAR NOT NULL, reasons VARCHAR[] NOT NULL, axes VARCHAR NOT NULL,
	chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR,
	state BLOB NOT NULL, byte_offset BIGINT, byte_length BIGINT, line_sha256 BLOB, receipt_order VARCHAR, claim BOOLEAN NOT NULL,
	base_verdict VARCHAR NOT NULL, base_reasons VARCHAR NOT NULL,
	fail_pre VARCHAR NOT NULL, fail_mid VARCHAR NOT NULL, fail_post VARCHAR NOT NULL,
	skip_pre VARCHAR NOT NULL, skip_mid VARCHAR NOT NULL, skip_post VARCHAR NOT NULL,
	chain_status VARCHAR NOT NULL, chain_reason VARCHAR NOT NULL, nonce_status VARCHAR NOT NULL, nonce_reason VARCHAR NOT NULL,
	chain_note VARCHAR NOT NULL, nonce_note VARCHAR NOT NULL, link_prev VARCHAR NOT NULL, chain_what VARCHAR NOT NULL, claim_note VARCHAR NOT NULL,
	unknown_format BOOLEAN NOT NULL)`

// Writer writes one map task's directory.
type Writer struct {
	dir     string // the directory published
	attempt string // the hidden directory written until then
	plan    *RunPlan
	trust   Trust
	shard   int64
	db      *sql.DB
	conn    *sql.Conn
	app     *duckdb.Appender
	part    Part // the counts of the rows held
	parts   []Part
	content []Content
}

// ErrPublished is Create's or Close's answer when another attempt of the
// same shard of the same plan has published dir: its output stands and
// this attempt's is dropped.
var ErrPublished = errors.New("published by another attempt of the same shard")

// Create starts writing the records of shard n of plan, verified with
// trust (the plan's, as the caller checked), into a hidden attempt
// directory beside dir; Close publishes it as dir. dir must not exist or
// be empty; one published by this plan and shard already gives
// ErrPublished.
func Create(dir string, plan *RunPlan, n int64, trust Trust) (*Writer, error) {
	dir = filepath.Clean(dir)
	if n < 0 || n >= plan.Shards {
		return nil, &Error{Reason: ReasonExtraShard, Path: plan.Path, Msg: fmt.Sprintf("--shard %d: the plan has shards 0 to %d", n, plan.Shards-1)}
	}
	base := filepath.Base(dir)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return nil, fmt.Errorf("%s: name a directory of its own for the shard", dir)
	}
	if err := checkTarget(dir, plan, n); err != nil {
		return nil, err
	}
	attempt, err := newAttempt(dir)
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, attempt: attempt, plan: plan, trust: trust, shard: n}
	if err := w.openTable(); err != nil {
		w.Abort()
		return nil, err
	}
	return w, nil
}

// openTable opens a DuckDB of its own for the next part, with the
// records table and its appender. Each part gets a new database, closed
// once the part is written: the map step's memory is one part's, however
// many parts the shard has (a table emptied or dropped in one database
// keeps memory that grows with the shard).
func (w *Writer) openTable() error {
	db, err := openDuckDB()
	if err != nil {
		return err
	}
	w.db = db
	ctx := context.Background()
	if w.conn, err = db.Conn(ctx); err == nil {
		// One thread: the appender and the COPY of one part gain nothing
		// from more, and DuckDB's workers cost the map step half again
		// its CPU (their queues' locks, their buffers' page faults) and
		// about 0.3 GB more at the part's write. The bytes written are
		// the same.
		_, err = w.conn.ExecContext(ctx, "SET threads = 1")
	}
	if err == nil {
		_, err = w.conn.ExecContext(ctx, recordsTable)
	}
	if err == nil {
		err = w.openAppender()
	}
	return err
}

// newAttempt makes a new hidden attempt directory beside dir.
func newAttempt(dir string) (string, error) {
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return "", err
	}
	attempt, err := os.MkdirTemp(filepath.Dir(dir), attemptPrefix(dir))
	if err != nil {
		return "", err
	}
	if err := os.Chmod(attempt, 0o755); err != nil {
		os.RemoveAll(attempt)
		return "", err
	}
	return attempt, nil
}

// attemptPrefix is the name of dir's attempt directories but for their
// random tail: hidden, so that a shell's maps/* does not list them.
func attemptPrefix(dir string) string { return "." + filepath.Base(dir) + ".attempt-" }

// checkTarget refuses a dir that holds anything but nothing or this
// shard of this plan published (ErrPublished).
func checkTarget(dir string, plan *RunPlan, n int64) error {
	return checkPublishTarget(dir, plan, n, "a published map directory", "shard", func(dir string) (owner, error) {
		m, err := readManifest(dir)
		if err != nil {
			return owner{}, err
		}
		return owner{m.Run, m.PlanSHA256, m.Shard}, nil
	})
}

// owner is what a published directory says it holds: a shard of a run.
type owner struct {
	run, planSHA256 string
	shard           int64
}

// checkPublishTarget refuses a dir that holds anything but nothing or
// shard n of plan published by some attempt (ErrPublished). what names
// such a directory in messages ("a published map directory"), held what
// it holds ("shard", "folded shard"); read reads its owner.
func checkPublishTarget(dir string, plan *RunPlan, n int64, what, held string, read func(string) (owner, error)) error {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(ents) == 0 {
		return nil
	}
	o, err := read(dir)
	if err != nil {
		return &Error{Reason: ReasonPublished, Path: dir, Msg: "not empty and not " + what + ": --emit names a directory of the shard's own"}
	}
	if o.planSHA256 != plan.SHA256 || o.shard != n {
		return &Error{Reason: ReasonPublished, Path: dir, Msg: fmt.Sprintf("holds %s %d of run %s (plan SHA-256 %s), not shard %d of run %s (%s)",
			held, o.shard, o.run, o.planSHA256, n, plan.ID, plan.SHA256)}
	}
	return ErrPublished
}

func (w *Writer) openAppender() error {
	return w.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a DuckDB connection")
		}
		var err error
		w.app, err = duckdb.NewAppenderFromConn(c, "", "records")
		return err
	})
}

// Add writes one record; records come in the order streamrun.Map gives them.
func (w *Writer) Add(m *streamrun.Mapped) error {
	if m.Seq >= 1<<SeqBits {
		return fmt.Errorf("more than 2^%d records in one shard", SeqBits)
	}
	if w.db == nil {
		if err := w.openTable(); err != nil {
			return err
		}
	}
	r := m.Result
	axes, err := r.Axes.MarshalJSON()
	if err != nil {
		return err
	}
	reasons := r.Reasons
	if reasons == nil {
		reasons = []verify.Reason{}
	}
	texts := make([]string, len(reasons))
	for i, x := range reasons {
		texts[i] = string(x)
	}
	var offset, length, sum driver.Value
	fb := &m.Fold
	if m.HasLine {
		offset, length, sum = m.Line.Offset, m.Line.Length, m.Line.SHA256[:]
	}
	err = w.app.AppendRow(w.shard<<SeqBits|int64(m.Seq), r.Source, int64(r.Line), r.Format, string(r.Verdict), texts, string(axes),
		orNull(m.Keys.Chain), orNull(m.Keys.Link), orNull(m.Keys.Scope), orNull(m.Keys.Nonce), m.State, offset, length, sum, orNull(m.Keys.Order), m.Keys.Claim,
		fb.Verdict, fb.Reasons, fb.Fail[0], fb.Fail[1], fb.Fail[2], fb.Skip[0], fb.Skip[1], fb.Skip[2],
		string(fb.Chain.Status), string(fb.Chain.Reason), string(fb.Nonce.Status), string(fb.Nonce.Reason),
		fb.Chain.Note, fb.Nonce.Note, fb.Prev, fb.What, fb.Claim, fb.UnknownFormat)
	if err != nil {
		return err
	}
	w.part.Rows++
	if m.Keys.Link != "" {
		w.part.Links++
	}
	if m.Keys.Nonce != "" {
		w.part.Nonces++
	}
	if w.part.Rows >= partRows {
		return w.flush()
	}
	return nil
}

func orNull(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// flush writes the rows held as the next part.
func (w *Writer) flush() error {
	if err := w.app.Close(); err != nil {
		return err
	}
	w.app = nil
	name := fmt.Sprintf("records-%05d.parquet", len(w.parts))
	path := filepath.Join(w.attempt, name)
	ctx := context.Background()
	// zstd at level 1: 3% smaller than DuckDB's default level 3 on these
	// parts, and a few percent of the map step's CPU less.
	stmt := fmt.Sprintf("COPY records TO %s (FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 1, ROW_GROUP_SIZE %d)", sqltext.String(path), groupRows)
	if _, err := w.conn.ExecContext(ctx, stmt); err != nil {
		return err
	}
	w.release()
	sum, err := fileSHA256(path, true)
	if err != nil {
		return err
	}
	w.part.Name, w.part.SHA256 = name, sum
	w.parts = append(w.parts, w.part)
	w.part = Part{}
	return nil
}

// fileSHA256 is the SHA-256 of the file at path, in hex; with sync, the
// file is flushed to the disk first.
func fileSHA256(path string, sync bool) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if sync {
		if err := f.Sync(); err != nil {
			return "", err
		}
	}
	return readerSHA256(f)
}

// readerSHA256 is the hex SHA-256 of what r reads to its end.
func readerSHA256(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Contents records each source's content as a load identifies it, read
// again after the records (ReadContent): the receipts table's
// file_sha256, and the files row's length, lines and first line. A
// source that cannot be read to its end has none; a fold leaves its
// receipts out of that table, as a load records nothing of such a file.
func (w *Writer) Contents(ctx context.Context, srcs []streamrun.Source) error {
	for _, src := range srcs {
		if err := ctx.Err(); err != nil {
			return err
		}
		c, err := ReadContent(ctx, src)
		if err != nil {
			continue
		}
		w.content = append(w.content, Content{Source: src.Name, FileContent: c})
	}
	return nil
}

// ReadContent reads src's content, decompressed when its bytes are gzip,
// as a load identifies a file.
func ReadContent(ctx context.Context, src streamrun.Source) (analytics.FileContent, error) {
	rc, err := src.Open()
	if err != nil {
		return analytics.FileContent{}, err
	}
	defer rc.Close()
	size := int64(-1)
	if f, ok := rc.(*os.File); ok {
		size = gunzip.Size(f)
	}
	// src may open its content decompressed already (the command's
	// sources do): read as the stream reads a source, which decompresses
	// gzip bytes whatever the name (streamrun's openSource).
	content, _, err := gunzip.Content(rc, "", size)
	if err != nil {
		return analytics.FileContent{}, err
	}
	return analytics.ReadFileContent(ctx, content)
}

// Close writes the last part and the manifest, which names every part
// with its SHA-256 and counts, and publishes the attempt as the shard's
// directory in one rename. ErrPublished: another attempt of the shard
// published first, and this one's files are removed.
func (w *Writer) Close(sum streamrun.MapSummary) error {
	defer w.release()
	if w.part.Rows > 0 || len(w.parts) == 0 {
		if err := w.flush(); err != nil {
			return w.failed(err)
		}
	}
	m := manifest{Version: manifestVersion, Build: build(), Run: w.plan.ID, PlanSHA256: w.plan.SHA256, Shards: w.plan.Shards,
		Shard: w.shard, Attempt: filepath.Base(w.attempt), Trust: w.trust, Inputs: w.plan.InputsOf(w.shard),
		Parts: slices.Clone(w.parts), Summary: sum, Contents: w.content}
	if m.Contents == nil {
		m.Contents = []Content{}
	}
	for _, p := range w.parts {
		m.Rows, m.Links, m.Nonces = m.Rows+p.Rows, m.Links+p.Links, m.Nonces+p.Nonces
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return w.failed(err)
	}
	if err := writeSynced(filepath.Join(w.attempt, Manifest), append(b, '\n')); err != nil {
		return w.failed(err)
	}
	return w.publish()
}

// writeSynced writes a new file and flushes it to the disk.
func writeSynced(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// publish renames the attempt to the shard's directory and removes the
// other attempts of the shard, which can no longer publish.
func (w *Writer) publish() error {
	if err := publishAttempt(w.attempt, w.dir); err != nil {
		return w.failed(err)
	}
	w.attempt = ""
	return nil
}

// publishAttempt renames the directory attempt, written whole, to dir
// and removes the other attempts of dir.
func publishAttempt(attempt, dir string) error {
	if d, err := os.Open(attempt); err == nil {
		d.Sync() // the attempt's entries reach the disk before it is published
		d.Close()
	}
	err := os.Rename(attempt, dir)
	if err != nil {
		// An empty directory made beforehand (by a batch script): not
		// every system renames over one.
		if os.Remove(dir) == nil {
			err = os.Rename(attempt, dir)
		}
	}
	if err != nil {
		return err
	}
	if d, err := os.Open(filepath.Dir(dir)); err == nil {
		d.Sync() // the rename reaches the disk where the system allows it
		d.Close()
	}
	stale, _ := filepath.Glob(filepath.Join(filepath.Dir(dir), globEscape(attemptPrefix(dir))+"*"))
	for _, s := range stale {
		os.RemoveAll(s)
	}
	return nil
}

// failed removes the attempt after err; when another attempt published
// the shard meanwhile (and perhaps removed this one's files), the answer
// is ErrPublished rather than err.
func (w *Writer) failed(err error) error {
	w.Abort()
	if checkTarget(w.dir, w.plan, w.shard) == ErrPublished {
		return ErrPublished
	}
	return err
}

// globEscape escapes the characters filepath.Match gives a meaning.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// release closes the writer's DuckDB.
func (w *Writer) release() {
	if w.app != nil {
		w.app.Close()
		w.app = nil
	}
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	if w.db != nil {
		w.db.Close()
		w.db = nil
	}
}

// Abort releases the writer after a failed run and removes its attempt
// directory: nothing is published. A map step killed before it can abort
// leaves its hidden attempt directory, which no reader takes for a
// shard and the next attempt to publish removes.
func (w *Writer) Abort() {
	w.release()
	if w.attempt != "" {
		os.RemoveAll(w.attempt)
		w.attempt = ""
	}
}

// Published reports whether dir holds shard n of plan, published by
// some attempt: after a failed attempt, the shard may be whole all the
// same.
func Published(dir string, plan *RunPlan, n int64) bool {
	return checkTarget(filepath.Clean(dir), plan, n) == ErrPublished
}
