package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/jsonenc"
)

// flaggedWithoutRaw are the receipts of one file ($1) stored without their
// line that RawFlagged keeps it for: those that do not PASS (the line of
// a receipt that passed its own checks and failed a chain or nonce
// judgment is not kept by a load that reads its input once), and those
// that PASS sharing a
// value the replays finding compares (queries/replays.sql: action_id,
// nonce within its issuer, signature, call signature) with another
// receipt of the database. Each kind is grouped over the whole table by
// the value's 64-bit hash, which DuckDB groups about twice as fast as the
// text (0.6 s against 1.0-2.8 s at 1M rows): two values that share a hash
// keep their lines too, so nothing the replays finding lists loses its
// line, and a collision only keeps a line more.
const flaggedWithoutRaw = `WITH mine AS (
    SELECT line, byte_offset, byte_length, line_sha256, verdict, action_id, COALESCE(issuer_id, '') AS scope, nonce,
           signature_sha256, call_signature
    FROM receipts WHERE file_sha256 = $1 AND raw IS NULL AND byte_offset IS NOT NULL
)
SELECT line, byte_offset, byte_length, line_sha256 FROM mine
WHERE verdict <> 'PASS'
   OR hash(action_id) IN (SELECT hash(action_id) FROM receipts WHERE action_id <> '' GROUP BY 1 HAVING count(*) > 1)
   OR hash(scope, nonce) IN (SELECT hash(COALESCE(issuer_id, ''), nonce) FROM receipts WHERE nonce <> '' GROUP BY 1 HAVING count(*) > 1)
   OR hash(signature_sha256) IN (SELECT hash(signature_sha256) FROM receipts WHERE signature_sha256 <> '' GROUP BY 1 HAVING count(*) > 1)
   OR hash(call_signature) IN (SELECT hash(call_signature) FROM receipts WHERE call_signature <> '' GROUP BY 1 HAVING count(*) > 1)
ORDER BY line`

// dropUnflaggedRaw drops the stored line of one receipt ($1 file_sha256,
// $2 line) that RawFlagged does not keep it for: PASS, its place in the
// archive recorded, and no value shared as in flaggedWithoutRaw.
const dropUnflaggedRaw = `UPDATE receipts SET raw = NULL
WHERE file_sha256 = $1 AND line = $2 AND verdict = 'PASS' AND byte_offset IS NOT NULL AND line_sha256 IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.action_id = receipts.action_id AND o.action_id <> ''
                  AND (o.file_sha256 <> receipts.file_sha256 OR o.line <> receipts.line))
  AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.nonce = receipts.nonce AND o.nonce <> ''
                  AND COALESCE(o.issuer_id, '') = COALESCE(receipts.issuer_id, '')
                  AND (o.file_sha256 <> receipts.file_sha256 OR o.line <> receipts.line))
  AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.signature_sha256 = receipts.signature_sha256 AND o.signature_sha256 <> ''
                  AND (o.file_sha256 <> receipts.file_sha256 OR o.line <> receipts.line))
  AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.call_signature = receipts.call_signature AND o.call_signature <> ''
                  AND (o.file_sha256 <> receipts.file_sha256 OR o.line <> receipts.line))`

// fillFlagged stores, in the file's open transaction, the lines RawFlagged
// keeps of the file's PASS receipts (flaggedWithoutRaw), read again from
// the input by offset and checked against their SHA-256. rowsSHA is the
// file_sha256 its rows were inserted under.
func (f *fileLoad) fillFlagged(rowsSHA string) error {
	rows, err := f.tx.QueryContext(f.ctx, flaggedWithoutRaw, rowsSHA)
	if err != nil {
		return err
	}
	var locs []lineLoc
	for rows.Next() {
		var l lineLoc
		if err := rows.Scan(&l.line, &l.offset, &l.length, &l.sha256); err != nil {
			rows.Close()
			return err
		}
		locs = append(locs, l)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(locs) == 0 {
		return nil
	}
	store, err := lineStorer(f.ctx, f.tx, locs)
	if err != nil {
		return err
	}
	// locs are in line order, so each piece is a range of lines, and its
	// statements read only the row groups of that range.
	p := &linePieces{dir: f.tempDir, store: func(from string, lo, hi int64) error {
		return store(f.ctx, f.tx, from, `receipts.file_sha256 = $1 AND receipts.line BETWEEN $2 AND $3`, rowsSHA, lo, hi)
	}}
	defer p.remove()
	if err := f.spoolLines(p, locs, ""); err != nil {
		return err
	}
	return p.flush()
}

// A line stored after its row (fillFlagged) is stored one of two ways.
// An UPDATE is cheap, but holds every line it stores in DuckDB's memory
// until COMMIT, beyond the reach of its memory limit, about 1.5 times
// their size: the 500 MB of such lines of a 3M-receipt ML-DSA-65 archive
// took a 512MB audit out of memory. Inserting each row again with its
// line and deleting the row without it stays within the limit (inserted
// rows are written to the database file as they fill row groups, a
// delete is a mark), but the COMMIT then rewrites every row group that
// lost a row: at 1M receipts, 165 MB of lines, 4.3 s more and 390 MB
// more memory than the UPDATE. So the UPDATE is used while the lines take
// at most a third of the memory limit.
type lineStore func(ctx context.Context, tx *sql.Tx, from, file string, args ...any) error

// lineStorer chooses how the lines at locs are stored.
func lineStorer(ctx context.Context, tx *sql.Tx, locs []lineLoc) (lineStore, error) {
	var total int64
	for _, l := range locs {
		total += l.length
	}
	var limit string
	if err := tx.QueryRowContext(ctx, "SELECT current_setting('memory_limit')").Scan(&limit); err != nil {
		return nil, err
	}
	if n, ok := settingBytes(limit); ok && total <= n/3 {
		return updateLines, nil
	}
	return reinsertLines, nil
}

// settingBytes reads a size as DuckDB shows a setting ("488.2 MiB").
func settingBytes(s string) (int64, bool) {
	num, unit, ok := strings.Cut(s, " ")
	n, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || n < 0 {
		return 0, false
	}
	shift, ok := map[string]uint{"bytes": 0, "KiB": 10, "MiB": 20, "GiB": 30, "TiB": 40, "PiB": 50}[unit]
	if !ok {
		return 0, false
	}
	return int64(n * float64(int64(1)<<shift)), true
}

// lineMatch is the condition, after " s WHERE ", of a line (s, from a
// spool of {line, raw} or {sha, line, raw} rows) and the receipts row it
// is stored in, which meets file too.
func lineMatch(file string) string {
	return ` s WHERE ` + file + ` AND receipts.line = s.line AND receipts.raw IS NULL AND s.raw IS NOT NULL`
}

// updateLines stores the lines of from by UPDATE.
func updateLines(ctx context.Context, tx *sql.Tx, from, file string, args ...any) error {
	_, err := tx.ExecContext(ctx, `UPDATE receipts SET raw = s.raw FROM `+from+lineMatch(file), args...)
	return err
}

// reinsertLines stores the lines of from by inserting each row again with
// its line and deleting the row without it. A row keeps every other
// column, so nothing reads differently (queries order their rows; none
// reads the table's physical order).
func reinsertLines(ctx context.Context, tx *sql.Tx, from, file string, args ...any) error {
	on := lineMatch(file)
	if _, err := tx.ExecContext(ctx, `INSERT INTO receipts SELECT receipts.* REPLACE (s.raw AS raw) FROM receipts, `+from+on, args...); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM receipts USING `+from+on, args...)
	return err
}

// linePieceBytes bounds the lines one lineStore call is given: its joins
// hold them in a hash table, which must fit DuckDB's memory limit with
// room for the rest (the JSON reader's buffers alone take 32 MiB).
const linePieceBytes = 32 << 20

// linePieces spools lines read again, and hands each piece of about
// linePieceBytes to store with the lowest and highest line in it.
type linePieces struct {
	dir     string
	store   func(from string, lo, hi int64) error
	sp      *spool
	lo, hi  int64
	withSHA bool
}

// add adds one line of the file whose rows are stored under sha ("" when
// the piece's statements name the file themselves).
func (p *linePieces) add(sha string, line int64, raw []byte) error {
	if p.sp == nil {
		sp, err := newSpool(p.dir)
		if err != nil {
			return &dberr.IOError{Op: "spool", Path: p.dir, Err: err}
		}
		p.sp, p.lo, p.hi, p.withSHA = sp, line, line, sha != ""
	}
	p.lo, p.hi = min(p.lo, line), max(p.hi, line)
	if err := p.sp.add(func(b []byte) []byte {
		b = append(b, '{')
		if sha != "" {
			b = append(b, `"sha":"`...)
			b = jsonenc.AppendChars(b, []byte(sha), false)
			b = append(b, `",`...)
		}
		b = append(b, `"line":`...)
		b = strconv.AppendInt(b, line, 10)
		b = append(b, `,"raw":"`...)
		b = jsonenc.AppendChars(b, raw, false)
		return append(b, "\"}\n"...)
	}); err != nil {
		return err
	}
	if p.sp.size >= linePieceBytes {
		return p.flush()
	}
	return nil
}

// flush stores the piece spooled so far, if any.
func (p *linePieces) flush() error {
	sp := p.sp
	if sp == nil {
		return nil
	}
	p.sp = nil
	defer sp.remove()
	if err := sp.close(); err != nil {
		return &dberr.IOError{Op: "spool", Path: sp.path, Err: err}
	}
	columns := `{line: 'BIGINT', raw: 'VARCHAR'}`
	if p.withSHA {
		columns = `{sha: 'VARCHAR', line: 'BIGINT', raw: 'VARCHAR'}`
	}
	return p.store(sp.read(columns), p.lo, p.hi)
}

// remove removes the piece not stored, after an error.
func (p *linePieces) remove() {
	if p.sp != nil {
		p.sp.remove()
		p.sp = nil
	}
}

// spoolLines reads the lines at locs again from the input, checked
// against their SHA-256, and adds them to p, with sha.
func (f *fileLoad) spoolLines(p *linePieces, locs []lineLoc, sha string) error {
	rc, err := f.in.Open()
	if err != nil {
		return &dberr.IOError{Op: "load", Path: f.in.Name, Err: err}
	}
	defer rc.Close()
	cr := newContentReader(rc)
	for _, l := range locs {
		line, err := cr.read(l)
		if err != nil {
			return &dberr.IOError{Op: "load", Path: f.in.Name, Err: fmt.Errorf("line %d: reading it again: %w", l.line, err)}
		}
		if err := p.add(sha, l.line, line); err != nil {
			return err
		}
	}
	return nil
}
