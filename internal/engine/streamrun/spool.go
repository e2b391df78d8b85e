package streamrun

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"slices"
	"sync/atomic"

	"github.com/receiptverify/verify/internal/helpers/bufpool"
	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify"
)

// spool holds every record of the first pass, each line with its verified
// result, in a temporary file read back in order, so that every receipt
// is parsed, canonicalized and verified once however long the input. The
// second pass reads the spool alone, or (Options.KeepRaw) the input again
// beside it, for the records' bytes.
//
// A frame is the length of the rest (uvarint), the record's kind (1 byte),
// line (uvarint) and source (uvarint length, bytes); then, for a line, its
// length and a seeded hash of its bytes (8 bytes each; the hash is 0 when
// the input will not be read again), with RunTo's Sink.Keep its offset
// (uvarint) and what Keep appended (4-byte length, bytes), and
// verify.AppendBinary; for an
// unreadable line or file, the error text; for a blank line, nothing.
// Reading the input again checks kind, source, line, length and hash, so
// an input that changed between the passes is an error, never a result
// attached to the wrong line.
type spool struct {
	f    *os.File
	w    *bufio.Writer
	r    *bufio.Reader
	seed maphash.Seed
	// reread: the second pass reads the input again (Options.KeepRaw), so
	// frames carry the hash of their line's bytes to compare against.
	reread bool
	// keep is RunTo's Sink.Keep: a line's frame then carries its offset and
	// what keep appended (a 4-byte length and the bytes) before its
	// result.
	keep func(dst, raw []byte, sum [sha256.Size]byte, res *verify.Result) []byte
	// source is the source of the last frame read back, whose string the
	// next frames of the same source share.
	source string
}

// Errors of a run that cannot finish (Run wraps them with the place).
var (
	// ErrInputChanged: an input read a second time (Options.KeepRaw) is not
	// what the first pass read (a file rewritten during the run).
	ErrInputChanged = errors.New("input changed while it was being verified")
	// ErrSpool: the spool file could not be written or read back (a full
	// or failing temporary directory).
	ErrSpool = errors.New("spool of verified results")
)

// SourceError is a run's error at one record: the source it came from
// (Source.Name) and its line, so that a caller can tell which input
// changed while it was read again.
type SourceError struct {
	Source string
	Line   int
	Err    error
}

func (e *SourceError) Error() string { return fmt.Sprintf("%s line %d: %v", e.Source, e.Line, e.Err) }
func (e *SourceError) Unwrap() error { return e.Err }

func newSpool(dir string, reread bool) (*spool, error) {
	f, err := os.CreateTemp(dir, "verify-spool-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	// Read and written through f alone, the spool is unlinked at once where
	// the system allows (remove tries again where it does not): a run
	// killed outright (SIGKILL, SIGPIPE, a crash) leaves nothing behind.
	os.Remove(f.Name())
	return &spool{f: f, w: bufio.NewWriterSize(f, 1<<20), seed: maphash.MakeSeed(), reread: reread}, nil
}

// encode frames one record, with its result when it is a line; called on
// the verifying goroutines. The frame's buffer comes from framePool and
// goes back when write has written it.
func (s *spool) encode(r *record, res *verify.Result) []byte {
	b := framePool.Get()
	b = append(b, byte(r.kind))
	b = binary.AppendUvarint(b, uint64(r.line))
	b = appendString(b, r.source)
	switch r.kind {
	case recordLine:
		var sum uint64
		if s.reread {
			sum = maphash.Bytes(s.seed, r.raw)
		}
		b = binary.LittleEndian.AppendUint64(b, uint64(len(r.raw)))
		b = binary.LittleEndian.AppendUint64(b, sum)
		if s.keep != nil {
			b = binary.AppendUvarint(b, uint64(r.offset))
			at := len(b)
			b = s.keep(append(b, 0, 0, 0, 0), r.raw, r.lineSum, res)
			binary.LittleEndian.PutUint32(b[at:], uint32(len(b)-at-4))
		}
		b = appendResult(res, b)
	case recordLineError, recordFileError:
		b = appendString(b, r.err.Error())
	}
	return b
}

// framePool recycles frame buffers, written (first pass) or read back
// (second pass) one per record: a result frame is a kilobyte or two, and
// allocating one per record showed as garbage-collection work in the
// stream's profile.
var framePool bufpool.Pool

// releaseFrame returns a frame buffer that nothing references any more.
func releaseFrame(b []byte) { framePool.Put(b) }

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// write writes a frame from encode, after its length, and releases its
// buffer.
func (s *spool) write(frame []byte) error {
	var n [binary.MaxVarintLen64]byte
	_, err := s.w.Write(n[:binary.PutUvarint(n[:], uint64(len(frame)))])
	if err == nil {
		_, err = s.w.Write(frame)
	}
	releaseFrame(frame)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return nil
}

// rewind ends the writing and starts the reading.
func (s *spool) rewind() error {
	err := s.w.Flush()
	if err == nil {
		_, err = s.f.Seek(0, io.SeekStart)
	}
	if err != nil {
		return fmt.Errorf("%w: %w", ErrSpool, err)
	}
	s.r = bufio.NewReaderSize(s.f, 1<<20)
	return nil
}

// maxFrame bounds a frame's length as read back: a result is far smaller
// than the record it came from.
const maxFrame = 2*limits.MaxDocumentBytes + 1<<16

// errSpoolEnd is next's error after the last frame.
var errSpoolEnd = errors.New("end of spool")

// next reads the next frame, into a buffer from framePool; called on the
// reading goroutine.
func (s *spool) next() ([]byte, error) {
	n, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return nil, errSpoolEnd
	}
	if err != nil || n > maxFrame {
		return nil, fmt.Errorf("%w: bad frame (%v)", ErrSpool, err)
	}
	frame := slices.Grow(framePool.Get(), int(n))[:n]
	if _, err := io.ReadFull(s.r, frame); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return frame, nil
}

// frame is one spooled record, as read back.
type frame struct {
	kind   recordKind
	line   int
	source string
	rest   []byte // a line's length, hash and result; another record's error
	buf    []byte // the whole frame, from framePool
}

// errBadFrame is a frame that does not parse; made once, as parseFrame
// runs for every record of a second pass.
var errBadFrame = fmt.Errorf("%w: bad frame", ErrSpool)

// parseFrame parses a frame; its source is prev when the bytes are the
// same, so that a source's records do not each copy its name.
func parseFrame(b []byte, prev string) (frame, error) {
	bad := errBadFrame
	if len(b) < 1 {
		return frame{}, bad
	}
	f := frame{kind: recordKind(b[0]), buf: b}
	b = b[1:]
	line, n := binary.Uvarint(b)
	if n <= 0 || line > 1<<62 {
		return frame{}, bad
	}
	f.line, b = int(line), b[n:]
	l, n := binary.Uvarint(b)
	if n <= 0 || l > uint64(len(b)-n) {
		return frame{}, bad
	}
	f.source, f.rest = prev, b[n+int(l):]
	if name := b[n : n+int(l)]; string(name) != prev {
		f.source = string(name)
	}
	return f, nil
}

// record turns a frame into the record the first pass read, for a second
// pass that does not read the input again. A line's record holds on to the
// frame's buffer until its result is decoded; any other record releases it.
func (f frame) record() (*record, error) {
	r := &record{kind: f.kind, source: f.source, line: f.line}
	switch f.kind {
	case recordLine:
		r.spooled, r.frame = f.rest, f.buf
		return r, nil
	case recordBlank:
		releaseFrame(f.buf)
		return r, nil
	}
	defer releaseFrame(f.buf)
	l, n := binary.Uvarint(f.rest)
	if n <= 0 || l != uint64(len(f.rest)-n) {
		return nil, fmt.Errorf("%w: bad frame", ErrSpool)
	}
	r.err = errors.New(string(f.rest[n:]))
	return r, nil
}

// matches reports whether a record read again is the one the frame holds
// (a line's bytes are compared in decode).
func (f frame) matches(r *record) bool {
	return f.kind == r.kind && f.line == r.line && f.source == r.source
}

// decode returns a line's result; with raw (the line read again) it first
// checks that the bytes are the ones verified. Called on the verifying
// goroutines.
// With RunTo's Sink.Keep it sets r's offset and kept bytes (which lie in the
// frame).
func (s *spool) decode(r *record) (*verify.Result, error) {
	rest, raw := r.spooled, r.raw
	if len(rest) < 16 {
		return nil, fmt.Errorf("%w: short frame", ErrSpool)
	}
	if raw != nil && (binary.LittleEndian.Uint64(rest) != uint64(len(raw)) || binary.LittleEndian.Uint64(rest[8:]) != maphash.Bytes(s.seed, raw)) {
		return nil, ErrInputChanged
	}
	rest = rest[16:]
	if s.keep != nil {
		off, n := binary.Uvarint(rest)
		if n <= 0 || len(rest)-n < 4 {
			return nil, fmt.Errorf("%w: bad frame", ErrSpool)
		}
		rest = rest[n:]
		k := binary.LittleEndian.Uint32(rest)
		if uint64(k) > uint64(len(rest)-4) {
			return nil, fmt.Errorf("%w: bad frame", ErrSpool)
		}
		r.kept = rest[4 : 4+k : 4+k]
		if raw == nil {
			r.offset = int64(off)
		}
		rest = rest[4+k:]
	}
	res := new(verify.Result)
	if err := res.UnmarshalBinary(rest); err != nil { // copies what it keeps
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return res, nil
}

// nextFrame reads and parses the next frame; errSpoolEnd after the last.
func (s *spool) nextFrame() (frame, int, error) {
	b, err := s.next()
	if err != nil {
		return frame{}, 0, err
	}
	f, err := parseFrame(b, s.source)
	s.source = f.source
	return f, len(b), err
}

// producer gives back every spooled record, for a second pass that does
// not read the input again.
func (s *spool) producer(bytesRead *atomic.Int64) producer {
	return func(add func(*record) bool) error {
		for {
			f, n, err := s.nextFrame()
			if err == errSpoolEnd {
				return nil
			}
			if err != nil {
				return err
			}
			bytesRead.Add(int64(n))
			r, err := f.record()
			if err != nil {
				return err
			}
			if !add(r) {
				return nil
			}
		}
	}
}

// drained reports an error when frames are left: the input has fewer
// records than the first pass read.
func (s *spool) drained() error {
	if _, err := s.r.Peek(1); err != io.EOF {
		return ErrInputChanged
	}
	return nil
}

func (s *spool) remove() {
	s.f.Close()
	os.Remove(s.f.Name())
}

// appendResult appends res's binary form to b.
func appendResult(res *verify.Result, b []byte) []byte {
	b, _ = res.AppendBinary(b) // it cannot fail
	return b
}
