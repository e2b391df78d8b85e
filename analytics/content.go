package analytics

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"slices"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/lines"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/limits"
)

// A load knows its inputs by content, not by name: the SHA-256 of the
// decompressed bytes identifies a file, so the same content under another
// name or recompressed is already loaded, and a JSON Lines file that has
// grown since (a producer appends to its log) is recognised by hashing its
// first bytes up to where the stored content ends: only its new lines are
// verified, judged against everything stored. A file whose already-loaded
// part has changed is refused (a *dberr.ChangedError).

// contentID is what one read of a file's content tells about it.
type contentID struct {
	sha256       string // of all of it
	bytes        int64
	head         string // SHA-256 of the first line, without its newline
	unterminated bool   // the last line has no newline
	newlines     int64
	// aligned is the hash of the content up to its last newline and
	// alignedBytes its length: what is stored when the last line, without
	// a newline, cannot be read (a producer still writing it).
	aligned      string
	alignedBytes int64
	// at holds the hash of the first n bytes for each n asked for, and the
	// byte that follows them (-1 at the end).
	at map[int64]prefixHash
}

type prefixHash struct {
	sha  string
	next int
}

// readContent hashes r, its first line apart; once the first line is read,
// offsets is asked at which lengths the hash of the prefix is wanted (the
// ends of stored contents that begin with the same line). It stops when
// ctx is done.
func readContent(ctx context.Context, r io.Reader, offsets func(head string) ([]int64, error)) (contentID, error) {
	id := contentID{at: map[int64]prefixHash{}}
	h, hh := sha256.New(), sha256.New()
	var pos int64
	id.aligned = hex.EncodeToString(h.Sum(nil))
	hash := func(b []byte) {
		id.newlines += int64(bytes.Count(b, []byte{'\n'}))
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			h.Write(b[:i+1])
			id.aligned, id.alignedBytes = hex.EncodeToString(h.Sum(nil)), pos+int64(i)+1
			b = b[i+1:]
		}
		h.Write(b)
	}
	buf := make([]byte, 256<<10)
	var (
		last     byte
		headDone bool
		want     []int64 // offsets still to reach, ascending
		pending  int64   = -1
	)
	startOffsets := func() error {
		headDone = true
		id.head = hex.EncodeToString(hh.Sum(nil))
		ws, err := offsets(id.head)
		if err != nil {
			return err
		}
		for _, o := range ws {
			if o >= pos {
				want = append(want, o)
			}
		}
		slices.Sort(want)
		want = slices.Compact(want)
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return id, err
		}
		n, rerr := r.Read(buf)
		chunk := buf[:n]
		for len(chunk) > 0 {
			if pending >= 0 {
				ph := id.at[pending]
				ph.next = int(chunk[0])
				id.at[pending] = ph
				pending = -1
			}
			if !headDone {
				i := bytes.IndexByte(chunk, '\n')
				if i < 0 {
					hh.Write(chunk)
				} else {
					hh.Write(chunk[:i])
					// The prefix up to the newline is hashed before the
					// offsets, which all lie at or past it, are asked.
					hash(chunk[:i])
					pos += int64(i)
					if i > 0 {
						last = chunk[i-1]
					}
					chunk = chunk[i:]
					if err := startOffsets(); err != nil {
						return id, err
					}
					continue
				}
			}
			if len(want) > 0 && want[0] <= pos+int64(len(chunk)) {
				k := want[0] - pos
				hash(chunk[:k])
				pos += k
				if k > 0 {
					last = chunk[k-1]
				}
				ph := prefixHash{sha: hex.EncodeToString(h.Sum(nil)), next: -1}
				if k < int64(len(chunk)) {
					ph.next = int(chunk[k])
				} else {
					pending = want[0]
				}
				id.at[want[0]] = ph
				want = want[1:]
				chunk = chunk[k:]
				continue
			}
			hash(chunk)
			pos += int64(len(chunk))
			last = chunk[len(chunk)-1]
			chunk = nil
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return id, rerr
		}
	}
	if !headDone {
		if err := startOffsets(); err != nil {
			return id, err
		}
	}
	if len(want) > 0 && want[0] == pos {
		id.at[pos] = prefixHash{sha: hex.EncodeToString(h.Sum(nil)), next: -1}
	}
	id.sha256, id.bytes = hex.EncodeToString(h.Sum(nil)), pos
	id.unterminated = pos > 0 && last != '\n'
	return id, nil
}

// lines is the number of lines of the content, as the stream numbers them.
func (id *contentID) lines() int64 {
	if id.unterminated {
		return id.newlines + 1
	}
	return id.newlines
}

// storedFile is a files row, as the content identity reads it, or an
// input earlier in the same load that will be one (pending).
type storedFile struct {
	sha, path, base, trust string
	bytes, firstLine       int64
	lines                  int64
	unterminated           bool
	pending                bool
	head                   string // SHA-256 of the first line ("" for rows written before it was recorded)
	// deferred is the load of a pending input identified during its
	// verifying read (plan.deferred), not yet read: only head is known.
	deferred *fileLoad
}

// total is the number of lines of the content the row covers.
func (s storedFile) total() int64 { return s.firstLine - 1 + s.lines }

const storedFileColumns = `file_sha256, path, COALESCE(base_sha256, ''), COALESCE(trust_sha256, ''),
	COALESCE(content_bytes, size_bytes), COALESCE(first_line, 1), lines, COALESCE(unterminated, false),
	COALESCE(head_sha256, '')`

func scanStoredFiles(rows *sql.Rows) ([]storedFile, error) {
	defer rows.Close()
	var out []storedFile
	for rows.Next() {
		var s storedFile
		if err := rows.Scan(&s.sha, &s.path, &s.base, &s.trust, &s.bytes, &s.firstLine, &s.lines, &s.unterminated, &s.head); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// chain is the files rows that hold the content row sha covers: it and the
// rows it extends, first line last.
func chain(ctx context.Context, conn *sql.Conn, sha string) ([]storedFile, error) {
	var out []storedFile
	for sha != "" && len(out) < 1<<16 {
		rows, err := conn.QueryContext(ctx, "SELECT "+storedFileColumns+" FROM files WHERE file_sha256 = $1", sha)
		if err != nil {
			return nil, err
		}
		fs, err := scanStoredFiles(rows)
		if err != nil {
			return nil, err
		}
		if len(fs) == 0 {
			break
		}
		out = append(out, fs[0])
		sha = fs[0].base
	}
	return out, nil
}

// compareStored reads the input beside the lines stored for rows (a
// chain) and returns the first line that differs, or 0 and true when the
// input's lines are all as stored and it ends within them (an earlier state
// of the stored content). With same, it reads on past the first
// difference and sets *same when some other line that is not blank is
// as stored at the same place: the input is that content, edited, and not
// another file that took its name (a log truncated and begun again). A receipt stored without its line (RawPolicy) is
// compared by its line_sha256; rejects stored without their text (too
// long, not UTF-8) are not compared; a line with no row is a blank line.
func compareStored(ctx context.Context, conn *sql.Conn, open func() (io.ReadCloser, error), rows []storedFile, same *bool) (int64, bool, error) {
	total := rows[0].total()
	shas := make([]string, len(rows))
	for i, r := range rows {
		shas[i] = r.sha
	}
	in := sqltext.Strings(shas)
	stored, err := conn.QueryContext(ctx, `SELECT line, raw, line_sha256 FROM receipts WHERE file_sha256 IN (`+in+`)
		UNION ALL SELECT line, raw, NULL FROM rejects WHERE file_sha256 IN (`+in+`) ORDER BY line`)
	if err != nil {
		return 0, false, &dberr.IOError{Op: "read stored lines", Err: err}
	}
	defer stored.Close()
	rc, err := open()
	if err != nil {
		return 0, false, err
	}
	defer rc.Close()
	br := bufio.NewReaderSize(rc, 64<<10)
	var (
		nextLine int64 = -1
		nextRaw  sql.NullString
		nextSHA  sql.NullString // line_sha256, for a line stored without its text
	)
	advance := func() error {
		nextLine = -1
		if stored.Next() {
			return stored.Scan(&nextLine, &nextRaw, &nextSHA)
		}
		return stored.Err()
	}
	if err := advance(); err != nil {
		return 0, false, &dberr.IOError{Op: "read stored lines", Err: err}
	}
	var (
		buf       []byte
		firstDiff int64
	)
	differs := func(n int64) (stop bool) {
		if firstDiff == 0 {
			firstDiff = n
		}
		return same == nil
	}
	for n := int64(1); n <= total; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return 0, false, ctx.Err()
		}
		line, tooLong, rerr := lines.Read(br, buf, limits.MaxLineBytes)
		if rerr != nil && rerr != io.EOF {
			return 0, false, rerr
		}
		if rerr == io.EOF && len(line) == 0 && !tooLong {
			break // ends within the stored lines
		}
		buf = line
		if nextLine == n {
			if !tooLong && (nextRaw.Valid && nextRaw.String != string(line) ||
				!nextRaw.Valid && nextSHA.Valid && !lineMatches(line, nextSHA.String)) {
				if differs(n) {
					return n, false, nil
				}
			} else if firstDiff != 0 && !tooLong && (nextRaw.Valid || nextSHA.Valid) {
				*same = true // a line as stored after one that differs
				return firstDiff, false, nil
			}
			if err := advance(); err != nil {
				return 0, false, &dberr.IOError{Op: "read stored lines", Err: err}
			}
		} else if len(bytes.TrimSpace(line)) != 0 || tooLong {
			if differs(n) { // a blank line stored, text now
				return n, false, nil
			}
		}
		if rerr == io.EOF {
			break // its last line, unterminated
		}
	}
	if firstDiff != 0 {
		return firstDiff, false, nil
	}
	return 0, true, nil
}

// errIdentify marks a database error met while identifying an input, as
// opposed to the input's own read error.
type errIdentify struct{ err error }

func (e errIdentify) Error() string { return e.err.Error() }

// plan is what a load does with one input, once it is identified.
type plan struct {
	id        contentID
	skip      int64        // bytes of content already stored, not verified again
	firstLine int64        // the first line verified (1, or one past what is stored)
	base      string       // the files row this input extends, "" for a whole new file
	known     []storedFile // the rows holding the content already: it is already loaded
	err       error        // the input cannot be loaded (unreadable, changed)
	// deferred: the input is new, and its content identity (id, but for
	// head) is taken from the verifying read (fileLoad.settle) instead of
	// a read of its own before it.
	deferred bool
}

// identify reads the input's content and decides: already loaded (known),
// grown (base, skip, firstLine), changed (err, a *dberr.ChangedError), or new. A
// database error is returned as such.
func (l *loader) identify(in Input) (plan, error) {
	if p, ok, err := l.identifyNew(in); err != nil || ok {
		return p, err
	}
	p := plan{firstLine: 1}
	id, cands, err := l.readCandidates(in)
	var ie inputErr
	switch {
	case errors.Is(err, errRetry):
		return l.identify(in)
	case errors.As(err, &ie):
		p.err = ie.err
		return p, nil
	case err != nil:
		return p, err
	}
	p.id = id
	if p.known, err = l.sameContent(in, p.id.sha256); err != nil || len(p.known) > 0 {
		return p, err
	}
	cands, renamed := splitRenamed(cands, in.Name, p.id.head)
	match := longestExtended(cands, &p.id)
	other := conflicting(cands, match, in.Name)
	if match != nil && other == nil {
		return l.grown(p, match)
	}
	if match == nil && in.Lines {
		// Not found by its first line or its path: the stored content
		// whose second line it has, if any, as a moved file whose first
		// line was edited is not another file.
		if moved, err := l.bySecondLine(in); err != nil {
			return p, err
		} else if moved != nil && (renamed == nil || moved.bytes > renamed.bytes) {
			renamed = moved
		}
	}
	if match == nil && renamed != nil {
		if err := l.editedFirstLine(&p, in, renamed); err != nil || p.err != nil {
			return p, err
		}
	}
	if other == nil {
		return p, nil // new
	}
	return l.compareOther(p, in, other)
}

// errRetry: an input of this load that the candidates name was
// identified now (settleEarly); identify starts again.
var errRetry = errors.New("identify again")

// inputErr is the input's own error (it cannot be read), as opposed to a
// database error.
type inputErr struct{ err error }

func (e inputErr) Error() string { return e.err.Error() }

// readCandidates reads the input's content, asking, once its first line is
// read, for the stored contents it may extend or conflict with: the rows
// that begin with the same line, those loaded from the same path however
// their first line reads (an edit of the first line is then found, and
// not taken for a new file), and the inputs of this load before it that
// begin with that line. It returns errRetry when one of those is an input
// identified during its verifying read, which is identified now; an
// inputErr for the input's own read error.
func (l *loader) readCandidates(in Input) (contentID, []storedFile, error) {
	var cands []storedFile
	rc, err := in.Open()
	if err != nil {
		return contentID{}, nil, inputErr{err}
	}
	id, err := readContent(l.ctx, rc, func(head string) ([]int64, error) {
		if !in.Lines {
			return nil, nil
		}
		rows, err := l.conn.QueryContext(l.ctx, "SELECT "+storedFileColumns+" FROM files WHERE head_sha256 = $1 OR path = $2", head, in.Name)
		if err != nil {
			return nil, errIdentify{err}
		}
		if cands, err = scanStoredFiles(rows); err != nil {
			return nil, errIdentify{err}
		}
		for _, c := range l.inCall {
			if c.head == head {
				cands = append(cands, c)
			}
		}
		var offs []int64
		for _, c := range cands {
			offs = append(offs, c.bytes)
		}
		return offs, nil
	})
	rc.Close()
	for _, c := range cands {
		if c.deferred != nil { // its content identity is needed now
			if err := l.settleEarly(c.deferred); err != nil {
				return id, nil, err
			}
			return id, nil, errRetry
		}
	}
	var ie errIdentify
	switch {
	case errors.As(err, &ie):
		return id, nil, dbErr(l.ctx, "read files", l.db.path, ie.err)
	case l.ctx.Err() != nil:
		return id, nil, l.ctx.Err()
	case err != nil:
		return id, nil, inputErr{err}
	}
	return id, cands, nil
}

// sameContent is the files rows holding the content whose SHA-256 is sha
// whole (it is already loaded), or none.
func (l *loader) sameContent(in Input, sha string) ([]storedFile, error) {
	known, err := chain(l.ctx, l.conn, sha)
	if err != nil {
		return nil, dbErr(l.ctx, "read files", l.db.path, err)
	}
	if len(known) == 0 {
		return nil, nil
	}
	return known, nil
}

// splitRenamed takes out of cands the rows loaded from the input's path
// (name) that begin with another line than head, to be compared apart,
// and returns the longest of them as renamed.
func splitRenamed(cands []storedFile, name, head string) (rest []storedFile, renamed *storedFile) {
	rest = slices.DeleteFunc(cands, func(c storedFile) bool {
		if c.pending || c.head == "" || c.head == head {
			return false
		}
		if c.path == name && (renamed == nil || c.bytes > renamed.bytes) {
			renamed = &c
		}
		return true
	})
	return rest, renamed
}

// longestExtended is the longest stored content of cands that the input
// (id) extends: its bytes are the input's first ones, and the input goes
// on past them.
func longestExtended(cands []storedFile, id *contentID) *storedFile {
	var match *storedFile
	for i, c := range cands {
		ph, ok := id.at[c.bytes]
		if !ok || c.bytes >= id.bytes || ph.sha != c.sha || (c.unterminated && ph.next != '\n') {
			continue
		}
		if match == nil || c.bytes > match.bytes {
			match = &cands[i]
		}
	}
	return match
}

// conflicting is what the input may conflict with: a growth of what it
// extends (match) that it does not match, or, when it extends nothing, the
// longest stored content from the same start, one loaded from the same
// path (name) first.
func conflicting(cands []storedFile, match *storedFile, name string) *storedFile {
	var other *storedFile
	for i, c := range cands {
		if match != nil {
			if !c.pending && descends(cands, &cands[i], match) && (other == nil || c.bytes > other.bytes) {
				other = &cands[i]
			}
			continue
		}
		if c.pending {
			continue // its lines are not stored yet to compare with
		}
		same, otherSame := c.path == name, other != nil && other.path == name
		if other == nil || (same && !otherSame) || (same == otherSame && c.bytes > other.bytes) {
			other = &cands[i]
		}
	}
	return other
}

// grown is the plan of an input that extends the stored content match:
// only its lines past match are verified; an input that adds nothing but
// the newline ending match's last line is already loaded.
func (l *loader) grown(p plan, match *storedFile) (plan, error) {
	p.base = match.sha
	p.skip = match.bytes
	if match.unterminated {
		p.skip++ // the newline that ends the stored last line
	}
	p.firstLine = match.total() + 1
	if p.skip == p.id.bytes && match.pending { // only that newline is new
		p.known = []storedFile{*match}
	} else if p.skip == p.id.bytes {
		known, err := chain(l.ctx, l.conn, match.sha)
		if err != nil {
			return p, dbErr(l.ctx, "read files", l.db.path, err)
		}
		p.known = known
	}
	return p, nil
}

// editedFirstLine compares the input with what was loaded from its path
// beginning with another line (renamed): when some other line is as
// stored, it is that content with its first line edited, and p.err is a
// *dberr.ChangedError; otherwise it is another log begun under the name
// (rotated by copytruncate, or renamed away and created again). The
// input's own read error goes in p.err; a database error or the
// context's is returned.
func (l *loader) editedFirstLine(p *plan, in Input, renamed *storedFile) error {
	rows, err := chain(l.ctx, l.conn, renamed.sha)
	if err != nil {
		return dbErr(l.ctx, "read files", l.db.path, err)
	}
	same := false
	line, _, err := compareStored(l.ctx, l.conn, in.Open, rows, &same)
	switch {
	case l.ctx.Err() != nil:
		return l.ctx.Err()
	case isIOError(err):
		return dbErr(l.ctx, "read stored lines", l.db.path, err)
	case err != nil:
		p.err = err
	case same:
		p.err = &dberr.ChangedError{Path: in.Name, Stored: renamed.path, Line: line, Lines: renamed.total()}
	}
	return nil
}

// compareOther compares the input with the stored content other that it
// may conflict with: an earlier state of it is already loaded; one
// loaded from the same path that differs has changed (a *dberr.ChangedError);
// otherwise the input is another file that begins as a stored one: new,
// and its receipts that are stored already are replays.
func (l *loader) compareOther(p plan, in Input, other *storedFile) (plan, error) {
	rows, err := chain(l.ctx, l.conn, other.sha)
	if err != nil {
		return p, dbErr(l.ctx, "read files", l.db.path, err)
	}
	line, earlier, err := compareStored(l.ctx, l.conn, in.Open, rows, nil)
	switch {
	case l.ctx.Err() != nil:
		return p, l.ctx.Err()
	case isIOError(err):
		return p, dbErr(l.ctx, "read stored lines", l.db.path, err)
	case err != nil:
		p.err = err
	case earlier:
		p.known = rows
	case other.path == in.Name:
		p.err = &dberr.ChangedError{Path: in.Name, Stored: other.path, Line: line, Lines: other.total()}
	}
	return p, nil
}

// identifyNew tells, from the input's first two lines, a JSON Lines input
// that no stored content can hold or be held by: no files row, nor an
// input of this load before it, begins with its first line or was loaded
// from its path, and no stored content has its second line
// (bySecondLine). identify would read it whole to find it new; it is
// then identified during the verifying read instead (plan.deferred). ok
// is false when identify must read it whole: an input that is not JSON
// Lines or has no newline, or one that any stored content may concern.
func (l *loader) identifyNew(in Input) (p plan, ok bool, err error) {
	p = plan{firstLine: 1}
	if !in.Lines {
		return p, false, nil
	}
	rc, err := in.Open()
	if err != nil {
		return p, false, nil // identify reports it
	}
	hh := sha256.New()
	br := bufio.NewReaderSize(rc, 64<<10)
	found := false
	for !found {
		if l.ctx.Err() != nil {
			rc.Close()
			return p, false, l.ctx.Err()
		}
		chunk, rerr := br.ReadSlice('\n')
		if rerr == nil {
			chunk, found = chunk[:len(chunk)-1], true
		}
		hh.Write(chunk)
		if rerr != nil && rerr != bufio.ErrBufferFull {
			break
		}
	}
	rc.Close()
	if !found {
		return p, false, nil
	}
	head := hex.EncodeToString(hh.Sum(nil))
	for _, c := range l.inCall {
		if c.head == head {
			return p, false, nil
		}
	}
	known, err := l.storedStarts()
	if err != nil {
		return p, false, err
	}
	if known.heads[head] || known.paths[in.Name] {
		return p, false, nil
	}
	if moved, err := l.bySecondLine(in); err != nil || moved != nil {
		return p, false, err
	}
	p.id.head, p.deferred = head, true
	return p, true, nil
}

// descends reports whether c extends (directly or not) the content of
// anc, following base among cands.
func descends(cands []storedFile, c, anc *storedFile) bool {
	for n := 0; c != nil && n < len(cands); n++ {
		if c.base == anc.sha {
			return true
		}
		i := slices.IndexFunc(cands, func(x storedFile) bool { return x.sha == c.base })
		if i < 0 {
			return false
		}
		c = &cands[i]
	}
	return false
}

// bySecondLine is the longest stored content whose second line is the
// input's (by line_sha256), from the same first line as the content that
// line is stored from, or nil.
func (l *loader) bySecondLine(in Input) (*storedFile, error) {
	rc, err := in.Open()
	if err != nil {
		return nil, nil // the input's own error is found when it is read
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var second []byte
	for n := 1; n <= 2; n++ {
		line, tooLong, rerr := lines.Read(br, nil, limits.MaxLineBytes)
		if tooLong || rerr != nil && rerr != io.EOF || rerr == io.EOF && n < 2 {
			rc.Close()
			return nil, nil
		}
		second = line
	}
	rc.Close()
	if len(bytes.TrimSpace(second)) == 0 {
		return nil, nil
	}
	sum := sha256.Sum256(second)
	known, err := l.storedStarts()
	if err != nil {
		return nil, err
	}
	if !known.seconds[hex.EncodeToString(sum[:])] {
		return nil, nil
	}
	rows, err := l.conn.QueryContext(l.ctx, "SELECT "+storedFileColumns+` FROM files WHERE head_sha256 IN (
		SELECT f.head_sha256 FROM receipts r JOIN files f ON f.file_sha256 = r.file_sha256
		WHERE r.line = 2 AND r.line_sha256 = $1 AND f.head_sha256 IS NOT NULL)`, hex.EncodeToString(sum[:]))
	if err != nil {
		return nil, dbErr(l.ctx, "read files", l.db.path, err)
	}
	cands, err := scanStoredFiles(rows)
	if err != nil {
		return nil, dbErr(l.ctx, "read files", l.db.path, err)
	}
	var best *storedFile
	for i, c := range cands {
		if best == nil || c.bytes > best.bytes {
			best = &cands[i]
		}
	}
	return best, nil
}

// starts are how the stored contents begin, read once per load for
// identifyNew and bySecondLine, which ask it of every input: the first
// lines (head_sha256) and paths of the files rows, and the line_sha256 of
// the second lines stored of contents whose first line is recorded. No
// row is written while the inputs are identified.
type starts struct {
	heads, paths, seconds map[string]bool
}

func (l *loader) storedStarts() (*starts, error) {
	if l.starts != nil {
		return l.starts, nil
	}
	st := &starts{heads: map[string]bool{}, paths: map[string]bool{}, seconds: map[string]bool{}}
	read := func(q string, into func(a, b sql.NullString)) error {
		rows, err := l.conn.QueryContext(l.ctx, q)
		if err != nil {
			return dbErr(l.ctx, "read files", l.db.path, err)
		}
		defer rows.Close()
		for rows.Next() {
			var a, b sql.NullString
			if err := rows.Scan(&a, &b); err != nil {
				return dbErr(l.ctx, "read files", l.db.path, err)
			}
			into(a, b)
		}
		if err := rows.Err(); err != nil {
			return dbErr(l.ctx, "read files", l.db.path, err)
		}
		return nil
	}
	if err := read("SELECT head_sha256, path FROM files", func(head, path sql.NullString) {
		if head.Valid {
			st.heads[head.String] = true
		}
		if path.Valid {
			st.paths[path.String] = true
		}
	}); err != nil {
		return nil, err
	}
	if err := read(`SELECT DISTINCT r.line_sha256, NULL FROM receipts r JOIN files f ON f.file_sha256 = r.file_sha256
		WHERE r.line = 2 AND f.head_sha256 IS NOT NULL`, func(sum, _ sql.NullString) {
		if sum.Valid {
			st.seconds[sum.String] = true
		}
	}); err != nil {
		return nil, err
	}
	l.starts = st
	return st, nil
}

// FileContent is what a load records of a file's content in its files
// row, from one read of it: its SHA-256 (file_sha256), length
// (content_bytes), lines as the stream numbers them (lines, blank ones
// included), whether its last line lacks a newline (unterminated) and the
// SHA-256 of its first line (head_sha256).
type FileContent struct {
	SHA256       string `json:"sha256"`
	Bytes        int64  `json:"bytes"`
	Lines        int64  `json:"lines"`
	Unterminated bool   `json:"unterminated"`
	Head         string `json:"head_sha256"`
}

// ReadFileContent reads r, a file's content (decompressed), to its end
// as a load identifies a file.
func ReadFileContent(ctx context.Context, r io.Reader) (FileContent, error) {
	id, err := readContent(ctx, r, func(string) ([]int64, error) { return nil, nil })
	if err != nil {
		return FileContent{}, err
	}
	return FileContent{SHA256: id.sha256, Bytes: id.bytes, Lines: id.lines(), Unterminated: id.unterminated, Head: id.head}, nil
}
