package shard

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/receiptverify/verify/internal/helpers/lines"
	"github.com/receiptverify/verify/internal/limits"
)

// archiveLines reads lines of a shard's inputs again, at the offsets the
// map step recorded, in the order the fold meets them (an input's lines
// in line order): the raw column of the receipts that do not PASS and of
// the rejects, as a load keeps them. Each line is checked against the
// SHA-256 the map step recorded.
type archiveLines struct {
	src string
	f   *os.File
	at  *lines.At
}

// line is the line of src at ref; nil, with no error, for a line longer
// than a stream reads (limits.MaxLineBytes), which a load does not keep.
func (a *archiveLines) line(src string, ref *streamrun.LineRef) ([]byte, error) {
	if ref.Length > limits.MaxLineBytes {
		return nil, nil
	}
	if a.at == nil || a.src != src || a.at.Behind(ref.Offset) {
		if err := a.open(src); err != nil {
			return nil, &Error{Reason: ReasonMissing, Path: src, Msg: "the input cannot be read again for the lines of its receipts not PASS: " + errText(err)}
		}
	}
	changed := func(what string) error {
		return &Error{Reason: ReasonInputs, Path: src, Msg: fmt.Sprintf("the line at byte %d (%d bytes) %s: the input changed since its map step", ref.Offset, ref.Length, what)}
	}
	b, err := a.at.Read(ref.Offset, ref.Length, ref.SHA256)
	switch {
	case errors.Is(err, lines.ErrChanged):
		return nil, changed("is not the one verified")
	case err != nil:
		return nil, changed("is past its end")
	}
	return b, nil
}

// open reads src's content from its start, decompressed when gzip.
func (a *archiveLines) open(src string) error {
	a.close()
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	size := gunzip.Size(f)
	content, _, err := gunzip.Content(f, src, size)
	if err == nil {
		// Then as the stream reads a source: gzip bytes decompressed
		// whatever the name (streamrun's openSource).
		content, _, err = gunzip.Content(content, "", -1)
	}
	if err != nil {
		f.Close()
		return err
	}
	a.src, a.f, a.at = src, f, lines.NewAt(bufio.NewReaderSize(content, 1<<16))
	return nil
}

func (a *archiveLines) close() {
	if a.f != nil {
		a.f.Close()
	}
	*a = archiveLines{}
}
