package streamrun

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/receiptverify/verify/internal/helpers/bufpool"
	"github.com/receiptverify/verify/internal/helpers/ctxio"
	"github.com/receiptverify/verify/internal/helpers/lines"
	"github.com/receiptverify/verify/internal/limits"
)

// errLineTooLong is the error of a line over limits.MaxLineBytes.
var errLineTooLong = fmt.Errorf("line longer than %d bytes: refused", limits.MaxLineBytes)

// producer calls add on every record of a pass, in input order, and
// stops early when add returns false (the run was cancelled or failed).
type producer func(add func(*record) bool) error

// lineBounds are the lines and the blank lines one source may have:
// limits.MaxLinesPerFile and limits.MaxBlankLinesPerFile but in tests.
type lineBounds struct{ lines, blanks int }

// sourcesProducer reads the sources in order.
func sourcesProducer(ctx context.Context, srcs []Source, bounds lineBounds, bytesRead *atomic.Int64) producer {
	return func(add func(*record) bool) error {
		for _, src := range srcs {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if !readSource(ctx, src, bounds, bytesRead, add) {
				return nil
			}
		}
		return nil
	}
}

// batchAll numbers the records produce gives, calls attach (if set) on
// each, and hands them out in batches of at most batchRecords records and,
// but for the last line added, batchBytes bytes; send returns false when
// the run is cancelled.
func batchAll(produce producer, attach func(*record) error, send func(*batch) bool) error {
	var seq uint64
	var attachErr error
	cur := &batch{done: make(chan struct{})}
	curBytes := 0
	flush := func() bool {
		if len(cur.recs) == 0 {
			return true
		}
		b := cur
		cur, curBytes = &batch{done: make(chan struct{})}, 0
		return send(b)
	}
	add := func(r *record) bool {
		r.seq = seq
		seq++
		if attach != nil {
			if attachErr = attach(r); attachErr != nil {
				return false
			}
		}
		cur.recs = append(cur.recs, r)
		curBytes += len(r.raw)
		if len(cur.recs) >= batchRecords || curBytes >= batchBytes {
			return flush()
		}
		return true
	}
	err := produce(add)
	if attachErr != nil {
		return attachErr
	}
	if err != nil {
		return err
	}
	flush()
	return nil
}

// readSource reads one source, calling add per record; it returns false
// when add does (the run was cancelled). Every read checks ctx, so a
// source that never ends a line (/dev/zero) stops when the run is
// cancelled. A source of more than bounds.lines lines, or of more than
// bounds.blanks blank ones, is cut there with an error, as unreadable
// from that line on.
func readSource(ctx context.Context, src Source, bounds lineBounds, bytesRead *atomic.Int64, add func(*record) bool) bool {
	rc, err := openSource(src)
	if err != nil {
		return add(&record{kind: recordFileError, source: src.Name, err: err})
	}
	defer rc.Close()
	counted := &countingReader{r: ctxio.Reader(ctx, rc), n: bytesRead}
	if !src.Lines {
		data, err := io.ReadAll(io.LimitReader(counted, limits.MaxDocumentBytes+1))
		switch {
		case err != nil:
			return add(&record{kind: recordFileError, source: src.Name, err: err})
		case len(data) > limits.MaxDocumentBytes:
			return add(&record{kind: recordLineError, source: src.Name, line: 1, err: fmt.Errorf("document larger than %d bytes: refused", limits.MaxDocumentBytes)})
		case len(bytes.TrimSpace(data)) == 0:
			return add(&record{kind: recordLineError, source: src.Name, line: 1, err: errors.New("empty document")})
		}
		return add(&record{kind: recordLine, source: src.Name, line: 1, raw: data})
	}
	pos := &offsetReader{r: counted}
	br := bufio.NewReaderSize(pos, 1<<16)
	blanks := 0
	for line := 1; ; line++ {
		offset := pos.n - int64(br.Buffered()) // where this line starts
		if line > bounds.lines {
			return add(&record{kind: recordFileError, source: src.Name, line: line, err: fmt.Errorf("more than %d lines in one file: refused", bounds.lines)})
		}
		raw, tooLong, err := readLine(br)
		if err != nil && err != io.EOF { // the line is cut short: reported with the error, not verified
			where := fmt.Sprintf("after line %d", line-1)
			if len(raw) > 0 || tooLong {
				where = fmt.Sprintf("in line %d, cutting it short", line)
			}
			releaseLine(raw)
			return add(&record{kind: recordFileError, source: src.Name, line: line, err: fmt.Errorf("read error %s: %w", where, err)})
		}
		if len(raw) > 0 || tooLong || err == nil {
			r := &record{kind: recordLine, source: src.Name, line: line, offset: offset, raw: raw}
			switch {
			case tooLong:
				r.kind, r.raw, r.err = recordLineError, nil, errLineTooLong
			case len(bytes.TrimSpace(raw)) == 0:
				r.kind, r.raw = recordBlank, nil
				if blanks++; blanks > bounds.blanks {
					releaseLine(raw)
					return add(&record{kind: recordFileError, source: src.Name, line: line, err: fmt.Errorf("more than %d blank lines in one file: refused", bounds.blanks)})
				}
			}
			if !add(r) {
				return false
			}
		}
		if err == io.EOF {
			return true
		}
	}
}

// readLine returns the next line without its end, in a buffer of
// linePool (lines.Read); a line over limits.MaxLineBytes is drained and
// reported as tooLong, so reading can go on at the next line.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	return lines.Read(br, linePool.Get(), limits.MaxLineBytes)
}

// linePool recycles line buffers: a run that keeps no record's bytes past
// its verification (Options.KeepRaw off) would otherwise allocate every
// byte of its input twice.
var linePool bufpool.Pool

// releaseLine returns a line that nothing references any more to the pool.
func releaseLine(b []byte) { linePool.Put(b) }

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// offsetReader counts the bytes read from one source, so that each line's
// offset is known: what was read less what bufio still holds.
type offsetReader struct {
	r io.Reader
	n int64
}

func (o *offsetReader) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	o.n += int64(n)
	return n, err
}
