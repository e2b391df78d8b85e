package analytics

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// Trust is the material verdicts come from: the key and schema files the
// verifier was built from, its judging time and strictness, and the tool
// that judged. A load records it in the trust table, and each files and
// receipts row it adds points to it (trust_sha256), so a verdict can
// always be traced to what produced it.
type Trust struct {
	Keys    []TrustFile // in the order given
	Schemas []TrustFile // in the order read
	// At is the judging time when one was given (--at); zero when the
	// verifier judged by the clock of the load.
	At            time.Time
	StrictSchemas bool
	ToolVersion   string
}

// TrustFile is one key or schema file: its path, for people, and the
// SHA-256 of its bytes, which is what counts.
type TrustFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	// Data is the file's bytes, which a load stores in trust_contents;
	// nil when only the description is known.
	Data []byte `json:"-"`
}

// TrustFileOf describes a file by its bytes, and keeps them.
func TrustFileOf(path string, data []byte) TrustFile {
	h := sha256.Sum256(data)
	return TrustFile{Path: path, SHA256: hex.EncodeToString(h[:]), Data: data}
}

// storeTrustContents adds the bytes of files to trust_contents, each
// once by SHA-256; a file described without its bytes is left out.
func storeTrustContents(ctx context.Context, conn *sql.Conn, files ...TrustFile) error {
	for _, f := range files {
		if f.Data == nil {
			continue
		}
		if _, err := conn.ExecContext(ctx, `INSERT INTO trust_contents (sha256, content) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			f.SHA256, f.Data); err != nil {
			return err
		}
	}
	return nil
}

// TrustContent returns the stored bytes of the key, schema or baseline
// file whose SHA-256 (hex) is sum; ok is false when the database holds
// none (one written before contents were stored, or a file never used).
func (db *DB) TrustContent(ctx context.Context, sum string) (data []byte, ok bool, err error) {
	q := db.sql
	var exists bool
	if err := q.QueryRowContext(ctx, `SELECT count(*) > 0 FROM information_schema.tables
		WHERE table_schema = 'main' AND table_catalog = current_database() AND table_name = 'trust_contents'`).Scan(&exists); err != nil {
		return nil, false, &dberr.IOError{Op: "query trust contents", Err: err}
	}
	if !exists {
		return nil, false, nil
	}
	var b []byte
	err = q.QueryRowContext(ctx, "SELECT content FROM trust_contents WHERE sha256 = $1", sum).Scan(&b)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, &dberr.IOError{Op: "query trust contents", Err: err}
	}
	h := sha256.Sum256(b)
	if hex.EncodeToString(h[:]) != sum {
		return nil, false, &dberr.IOError{Op: "query trust contents", Err: fmt.Errorf("stored bytes of %s have another SHA-256", sum)}
	}
	return b, true, nil
}

// material is the canonical JSON trust_sha256 covers: the files' hashes
// (not their paths: the same bytes elsewhere are the same material), the
// judging time, strictness and tool version.
func (t Trust) material() []byte {
	hashes := func(fs []TrustFile) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.SHA256
		}
		return out
	}
	m := struct {
		Keys          []string `json:"keys"`
		Schemas       []string `json:"schemas"`
		At            string   `json:"at"`
		StrictSchemas bool     `json:"strict_schemas"`
		ToolVersion   string   `json:"tool_version"`
	}{hashes(t.Keys), hashes(t.Schemas), "", t.StrictSchemas, t.ToolVersion}
	if !t.At.IsZero() {
		m.At = t.At.UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(m)
	return b
}

// ID is the trust_sha256 of t.
func (t Trust) ID() string {
	h := sha256.Sum256(t.material())
	return hex.EncodeToString(h[:])
}

// recordTrust adds t to the trust table, unless it is there, and returns
// its trust_sha256.
func recordTrust(ctx context.Context, conn *sql.Conn, t Trust) (string, error) {
	id := t.ID()
	list := func(fs []TrustFile) string {
		if fs == nil {
			fs = []TrustFile{}
		}
		b, _ := json.Marshal(fs)
		return string(b)
	}
	var at any
	if !t.At.IsZero() {
		at = t.At.UTC()
	}
	_, err := conn.ExecContext(ctx, `INSERT INTO trust (trust_sha256, key_files, schema_files, judged_at, strict_schemas, tool_version, material)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
		id, list(t.Keys), list(t.Schemas), at, t.StrictSchemas, t.ToolVersion, string(t.material()))
	if err != nil {
		return id, err
	}
	return id, storeTrustContents(ctx, conn, append(slices.Clip(t.Keys), t.Schemas...)...)
}

// reverify verifies the stored receipts of files (each with the files rows
// that hold it, or, for a grown file, its lines stored before) again with
// v, in one transaction: each receipt is verified
// again on its own and keeps the chain and nonce judgments it had, which
// depend on hashes and nonces only (streamrun.Rejudge); its row is replaced,
// pointing to this load's trust material, as are its files rows. A
// receipt stored without its line is read from ins[i], the input that holds
// that content (its lines stored before are the same bytes at the same
// offsets).
func (l *loader) reverify(v *verify.Verifier, files []*FileSummary, rowsOf [][]storedFile, ins []Input) error {
	ctx := l.ctx
	fail := func(op string, err error) error { return dbErr(ctx, op, l.db.path, err) }
	tx, err := l.conn.BeginTx(ctx, nil)
	if err != nil {
		return fail("begin", err)
	}
	defer tx.Rollback()
	done := map[string]bool{}
	for i, fs := range files {
		for _, r := range rowsOf[i] {
			if done[r.sha] || r.trust == l.sum.Trust {
				continue
			}
			done[r.sha] = true
			if err := l.reverifyRow(tx, v, r.sha, ins[i]); err != nil {
				return err
			}
		}
		fs.Reverified = true
	}
	if err := tx.Commit(); err != nil {
		return fail("reverify", err)
	}
	for _, fs := range files {
		if fs.AlreadyLoaded { // a grown file is reported once its new lines are in
			l.report(fs)
		}
	}
	return nil
}

// reverifyRow replaces the receipts of one files row by their verification
// with v, reading the lines not stored from in.
func (l *loader) reverifyRow(tx *sql.Tx, v *verify.Verifier, sha string, in Input) error {
	ctx := l.ctx
	fail := func(op string, err error) error { return dbErr(ctx, op, sha, err) }
	var source string
	var loadedAt time.Time
	if err := tx.QueryRowContext(ctx, "SELECT path, loaded_at FROM files WHERE file_sha256 = $1", sha).Scan(&source, &loadedAt); err != nil {
		return fail("reverify", err)
	}
	sp, err := newSpool(l.opts.TempDir)
	if err != nil {
		return &dberr.IOError{Op: "spool", Path: sha, Err: err}
	}
	defer sp.remove()
	// The lines, kept aside in case a receipt counts otherwise as evidence
	// than it did (rejudge).
	lines, err := newSpool(l.opts.TempDir)
	if err != nil {
		return &dberr.IOError{Op: "spool", Path: sha, Err: err}
	}
	defer lines.remove()
	var stored []storedLine
	evidenceChanged := false
	rows, err := tx.QueryContext(ctx, `SELECT source, line, reasons, raw, byte_offset, byte_length, line_sha256, claim IS TRUE
		FROM receipts WHERE file_sha256 = $1 ORDER BY line`, sha)
	if err != nil {
		return fail("reverify", err)
	}
	var archive *contentReader
	defer func() {
		if archive != nil {
			archive.r.(io.Closer).Close()
		}
	}()
	for rows.Next() {
		var src string
		var reasons reasonList
		var raw, lineSHA sql.NullString
		var line int64
		var off, n sql.NullInt64
		var claim bool
		if err := rows.Scan(&src, &line, &reasons, &raw, &off, &n, &lineSHA, &claim); err != nil {
			rows.Close()
			return fail("reverify", err)
		}
		b := []byte(raw.String)
		if !raw.Valid {
			if archive == nil {
				rc, err := in.Open()
				if err != nil {
					rows.Close()
					return &dberr.IOError{Op: "reverify", Path: in.Name, Err: err}
				}
				archive = newContentReader(rc)
			}
			if b, err = archive.read(lineLoc{line, off.Int64, n.Int64, lineSHA.String}); err != nil {
				rows.Close()
				return &dberr.IOError{Op: "reverify", Path: in.Name, Err: fmt.Errorf("line %d: %w", line, err)}
			}
		}
		res, _ := v.VerifyWith(b, verify.VerifyOptions{OmitSignatureHash: true})
		evidenceChanged = evidenceChanged || res.Evidence() == claim
		streamrun.Rejudge(res, reasons)
		res.Source, res.Line = src, int(line)
		offset := off.Int64
		if !off.Valid { // stored before rows said where their lines are
			offset = -1
		}
		stored = append(stored, storedLine{src, line, offset, raw.Valid})
		if err := lines.add(func(dst []byte) []byte { return append(append(dst, b...), '\n') }); err != nil {
			rows.Close()
			return err
		}
		withRaw := raw.Valid || res.Verdict != verify.Pass
		if err := sp.add(func(dst []byte) []byte { return appendReceiptRow(dst, res, b, offset, withRaw, deliveryFlags{}) }); err != nil {
			rows.Close()
			return err
		}
	}
	if err := rows.Close(); err != nil {
		return fail("reverify", err)
	}
	if err := sp.close(); err != nil {
		return &dberr.IOError{Op: "spool", Path: sp.path, Err: err}
	}
	if err := lines.close(); err != nil {
		return &dberr.IOError{Op: "spool", Path: lines.path, Err: err}
	}
	if evidenceChanged {
		if sp, err = l.rejudge(v, sha, lines.path, stored); err != nil {
			return err
		}
		defer sp.remove()
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM receipts WHERE file_sha256 = $1", sha); err != nil {
		return fail("reverify", err)
	}
	if sp.size > 0 {
		if _, err := tx.ExecContext(ctx, receiptInsert+sp.read(receiptColumns), sha, source, loadedAt.UTC().Format(time.DateOnly), l.sum.Trust); err != nil {
			return fail("reverify", err)
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE files SET trust_sha256 = $1 WHERE file_sha256 = $2", l.sum.Trust, sha); err != nil {
		return fail("reverify", err)
	}
	return nil
}

// storedLine is where a stored receipt of a file judged again is.
type storedLine struct {
	source   string
	line     int64
	offset   int64
	rawValid bool
}

// rejudge judges the receipts of a file again, chains and nonces, when
// this load's trust material makes one of them count otherwise as
// evidence (verify.Result.Evidence) than it did: what a receipt whose
// signature did not verify claimed was never judged, and what it was
// judged by may have been such a claim. The lines (one a line, in the
// order of stored) run through the stream against every other stored
// file, as a load of the file would; the rows come back in a spool.
func (l *loader) rejudge(v *verify.Verifier, sha, linesPath string, stored []storedLine) (*spool, error) {
	sp, err := newSpool(l.opts.TempDir)
	if err != nil {
		return nil, &dberr.IOError{Op: "spool", Path: sha, Err: err}
	}
	prior := newArchivePrior(l.db.sql)
	prior.exclude = sha
	src := streamrun.Source{Name: linesPath, Lines: true, Open: func() (io.ReadCloser, error) { return os.Open(linesPath) }}
	i := 0
	_, err = streamrun.Run(l.ctx, v, []streamrun.Source{src}, streamrun.Options{Prior: prior, PriorBatch: archivePriorBatch, TempDir: l.opts.TempDir, KeepRaw: true, OmitSignatureHash: true},
		func(r *streamrun.Record) error {
			if i >= len(stored) {
				return fmt.Errorf("reverify %s: more lines than stored", sha)
			}
			m := stored[i]
			i++
			res := r.Result
			res.Source, res.Line = m.source, int(m.line)
			withRaw := m.rawValid || res.Verdict != verify.Pass
			return sp.add(func(dst []byte) []byte {
				return appendReceiptRow(dst, res, r.Raw, m.offset, withRaw, deliveryFlags{r.Duplicate, r.ChainOutside})
			})
		})
	if err == nil && i != len(stored) {
		err = fmt.Errorf("reverify %s: %d of %d stored lines read back", sha, i, len(stored))
	}
	if err == nil {
		err = sp.close()
	}
	if err != nil {
		sp.remove()
		return nil, &dberr.IOError{Op: "reverify", Path: sha, Err: err}
	}
	return sp, nil
}

// otherFiles reports whether the stored trust material id was other key
// or schema files (by SHA-256, whatever their paths) or strictness than
// this load's: what calls for --reverify. A judging time or tool version
// of its own does not: without --at every night judges by its own clock.
func (l *loader) otherFiles(id string) (bool, error) {
	if d, ok := l.filesDiffer[id]; ok {
		return d, nil
	}
	var keyFiles, schemaFiles sql.NullString
	var strict sql.NullBool
	err := l.conn.QueryRowContext(l.ctx, "SELECT key_files, schema_files, strict_schemas FROM trust WHERE trust_sha256 = $1", id).
		Scan(&keyFiles, &schemaFiles, &strict)
	if err == sql.ErrNoRows {
		return true, nil // loaded before provenance was recorded
	}
	if err != nil {
		return false, dbErr(l.ctx, "read trust", l.db.path, err)
	}
	hashes := func(text sql.NullString) []string {
		var fs []TrustFile
		json.Unmarshal([]byte(text.String), &fs)
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.SHA256
		}
		return out
	}
	mine := func(fs []TrustFile) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = f.SHA256
		}
		return out
	}
	t := l.opts.Trust
	d := !slices.Equal(hashes(keyFiles), mine(t.Keys)) || !slices.Equal(hashes(schemaFiles), mine(t.Schemas)) || strict.Bool != t.StrictSchemas
	if l.filesDiffer == nil {
		l.filesDiffer = map[string]bool{}
	}
	l.filesDiffer[id] = d
	return d, nil
}
