package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/receiptverify/verify/internal/helpers/lines"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/internal/limits"
	"github.com/urfave/cli/v2"
)

// inputArg returns the command's one optional FILE argument; "-" (or no
// argument) is stdin.
func inputArg(ctx *cli.Context) (string, error) {
	switch ctx.NArg() {
	case 0:
		return "-", nil
	case 1:
		return ctx.Args().First(), nil
	}
	return "", usagef(ctx, "want at most one FILE argument, got %d", ctx.NArg())
}

// input is one opened FILE|- argument.
type input struct {
	name   string // for diagnostics: the path, or "stdin"
	r      io.Reader
	closer io.Closer // nil for stdin
	gzip   bool      // read through gzip
}

// openInput opens path ("-" is stdin). A file whose bytes are gzip
// (whatever its name) is read through gzip. Errors are *inputError.
func openInput(path string, stdin io.Reader) (*input, error) {
	if path == "-" {
		return &input{name: "stdin", r: stdin}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{err}
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &inputError{fmt.Errorf("%s: is a directory", path)}
	}
	in := &input{name: path, r: f, closer: f}
	content, gz, err := gunzip.Content(f, path, gunzip.Size(f))
	if err != nil {
		f.Close()
		return nil, in.readError(err)
	}
	in.r, in.gzip = content, gz
	return in, nil
}

// readError describes a failure reading in as an *inputError naming it.
func (in *input) readError(err error) error {
	var pathErr *fs.PathError
	switch {
	case errors.As(err, &pathErr):
		// "read FILE: ..." already names the file.
	case in.gzip && !strings.HasPrefix(err.Error(), "gzip: "):
		err = fmt.Errorf("%s: gzip: %w", in.name, err)
	default:
		err = fmt.Errorf("%s: %w", in.name, err)
	}
	return &inputError{err}
}

func (in *input) Close() error {
	if in.closer == nil {
		return nil
	}
	return in.closer.Close()
}

// readAll reads the whole input, up to one byte past
// limits.MaxDocumentBytes so the dialect can refuse an oversized document
// by name without the whole of it being held in memory.
func (in *input) readAll() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(in.r, limits.MaxDocumentBytes+1))
	if err != nil {
		return nil, in.readError(err)
	}
	return b, nil
}

// lineFunc turns one input line (without its line ending) into one output
// line appended to dst (without a newline), or rejects it.
type lineFunc func(dst, line []byte) ([]byte, error)

// errBlankLine rejects an empty (or all white space) line: it is not a JSON
// document, and rejecting it keeps output line N about input line N.
var errBlankLine = errors.New("blank line is not a JSON document")

// eachLine is the loop shared by `canon --lines` and `fingerprint`: for
// every line of in it writes fn's output and a newline to stdout, or, when
// fn rejects the line, "error: <message>" to stdout and
// "verify: NAME:LINE: <message>" to stderr, and goes on. Output line N is
// always about input line N. A line longer than limits.MaxLineBytes is
// rejected the same way without being held in memory.
//
// It returns nil when every line was accepted, a *rejectedError when some
// were not, an *inputError when reading failed (the lines before the failure
// have been written), or the error writing stdout.
func eachLine(in *input, stdout, stderr io.Writer, fn lineFunc) error {
	lr := newLineReader(in.r, limits.MaxLineBytes)
	w := bufio.NewWriterSize(stdout, 64<<10)
	var (
		out           []byte
		n, rejected   int
		readErr, wErr error
	)
	for {
		line, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil && !errors.Is(err, errLineTooLong) {
			readErr = in.readError(err)
			break
		}
		n++
		out = out[:0]
		if err == nil && len(bytes.TrimSpace(line)) == 0 {
			err = errBlankLine
		}
		if err == nil {
			out, err = fn(out, line)
		}
		if err != nil {
			rejected++
			msg := termtext.Escape(oneLine(err.Error()))
			fmt.Fprintf(stderr, "verify: %s:%d: %s\n", termtext.Escape(in.name), n, msg)
			out = append(append(out[:0], "error: "...), msg...)
		}
		out = append(out, '\n')
		if _, wErr = w.Write(out); wErr != nil {
			break
		}
	}
	if err := w.Flush(); wErr == nil {
		wErr = err
	}
	switch {
	case readErr != nil:
		return readErr
	case wErr != nil:
		return fmt.Errorf("write stdout: %w", wErr)
	case rejected > 0:
		return &rejectedError{fmt.Errorf("%s: %d of %d lines rejected", in.name, rejected, n)}
	}
	return nil
}

// oneLine keeps a message on one line so output stays aligned with input.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
}

// errLineTooLong rejects a line longer than the reader's limit.
var errLineTooLong = fmt.Errorf("line is longer than %d bytes", limits.MaxLineBytes)

// lineReader reads lines of at most max bytes (lines.Read): it skips an
// overlong line, reports errLineTooLong for it and goes on with the next.
type lineReader struct {
	r   *bufio.Reader
	max int
	buf []byte
}

func newLineReader(r io.Reader, max int) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its "\n" or "\r\n". The last line need
// not end in a newline; an input that ends in one has no empty line after
// it. At the end it returns io.EOF. The line is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	line, tooLong, err := lines.Read(lr.r, lr.buf, lr.max)
	if line != nil {
		lr.buf = line
	}
	switch {
	case err == io.EOF && !tooLong && len(line) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		return nil, err
	case tooLong:
		return nil, errLineTooLong
	}
	return line, nil
}
