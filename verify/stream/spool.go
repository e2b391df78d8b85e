package stream

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"os"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify"
)

// spool holds each record's verified result between the two passes, in a
// temporary file read back in order, so that every receipt is parsed,
// canonicalized and verified once however long the input.
//
// A frame is the length of the rest (uvarint), the record's length and a
// seeded hash of its bytes (8 bytes each), then verify.Result.AppendBinary.
// The second pass checks the length and hash against the line it reads
// again, so an input that changed between the passes is an error, never a
// result attached to the wrong line.
type spool struct {
	f    *os.File
	w    *bufio.Writer
	r    *bufio.Reader
	seed maphash.Seed
}

// Errors of a run that cannot finish (Run wraps them with the place).
var (
	// ErrInputChanged: an input is not what the first pass read (a file
	// rewritten during the run).
	ErrInputChanged = errors.New("input changed while it was being verified")
	// ErrSpool: the spool file could not be written or read back (a full
	// or failing temporary directory).
	ErrSpool = errors.New("spool of verified results")
)

func newSpool(dir string) (*spool, error) {
	f, err := os.CreateTemp(dir, "verify-spool-*")
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return &spool{f: f, w: bufio.NewWriterSize(f, 1<<20), seed: maphash.MakeSeed()}, nil
}

// encode frames one result; called on the verifying goroutines.
func (s *spool) encode(res *verify.Result, raw []byte) []byte {
	b := make([]byte, binary.MaxVarintLen64, binary.MaxVarintLen64+16+512)
	b = binary.LittleEndian.AppendUint64(b, uint64(len(raw)))
	b = binary.LittleEndian.AppendUint64(b, maphash.Bytes(s.seed, raw))
	b, _ = res.AppendBinary(b)
	// The length goes in front of the frame, in the room left for it.
	var n [binary.MaxVarintLen64]byte
	k := binary.PutUvarint(n[:], uint64(len(b)-binary.MaxVarintLen64))
	start := binary.MaxVarintLen64 - k
	copy(b[start:], n[:k])
	return b[start:]
}

func (s *spool) write(frame []byte) error {
	if _, err := s.w.Write(frame); err != nil {
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

// next reads the next frame; called on the reading goroutine.
func (s *spool) next() ([]byte, error) {
	n, err := binary.ReadUvarint(s.r)
	if err == io.EOF {
		return nil, ErrInputChanged // the input has more records than before
	}
	if err != nil || n > maxFrame {
		return nil, fmt.Errorf("%w: bad frame (%v)", ErrSpool, err)
	}
	frame := make([]byte, n)
	if _, err := io.ReadFull(s.r, frame); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return frame, nil
}

// decode checks a frame against the record read again and returns its
// result; called on the verifying goroutines.
func (s *spool) decode(frame, raw []byte) (*verify.Result, error) {
	if len(frame) < 16 {
		return nil, fmt.Errorf("%w: short frame", ErrSpool)
	}
	if binary.LittleEndian.Uint64(frame) != uint64(len(raw)) || binary.LittleEndian.Uint64(frame[8:]) != maphash.Bytes(s.seed, raw) {
		return nil, ErrInputChanged
	}
	res := new(verify.Result)
	if err := res.UnmarshalBinary(frame[16:]); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSpool, err)
	}
	return res, nil
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
