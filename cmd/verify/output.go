package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"

	"github.com/receiptverify/verify/internal/helpers/outfile"
)

// outputFile is -o FILE: the results are written as outfile writes
// (into a temporary file beside a regular FILE, renamed over it when the
// command ends with its results whole; through a device or FIFO). A
// scheduled job that reads FILE then never finds half of a run, and a
// failed run leaves the last good FILE as it was.
type outputFile struct {
	path string
	out  *outfile.File
	buf  *bufio.Writer
}

// redirect sends what is written to s to a temporary file for path
// from now on. A file that cannot be created is an I/O error (exit 74).
// Opening a FIFO waits for its reader: a signal ends the wait.
func (s *stdoutWriter) redirect(ctx context.Context, path string) error {
	if s.file != nil {
		return nil
	}
	out, err := whileBlocked(ctx, path, func() (*outfile.File, error) { return outfile.Create(path) }, (*outfile.File).Abort)
	var interrupted *interruptedError
	if errors.As(err, &interrupted) {
		return err
	}
	if err != nil {
		return &ioError{fmt.Errorf("-o %s: %w", path, err)}
	}
	s.file = &outputFile{path: path, out: out, buf: bufio.NewWriterSize(out, 1<<16)}
	s.w = s.file.buf
	s.name = path
	return nil
}

// finish ends an -o FILE run whose outcome is err: the results are
// renamed into place unless the run ended in a usage, input or I/O error
// or was interrupted (exit 64, 66, 74, 130), when the temporary file is
// removed and FILE left as it was. A failure to write FILE is exit 74.
func (s *stdoutWriter) finish(err error) error {
	f := s.file
	if f == nil {
		return err
	}
	s.file = nil
	keep := true
	switch exitCode(err) {
	case exitUsage, exitNoInput, exitIOErr, exitInterrupt:
		keep = false
	}
	if !keep {
		f.out.Abort()
		if f.out.Through() {
			return fmt.Errorf("%w\n%s: the output stops short", err, f.path)
		}
		return fmt.Errorf("%w\n%s: not written, as the results are not whole", err, f.path)
	}
	werr := f.buf.Flush()
	if werr == nil {
		werr = f.out.Commit()
	} else {
		f.out.Abort()
	}
	if werr != nil {
		return &ioError{errors.Join(fmt.Errorf("-o %s: %w", f.path, werr), err)}
	}
	return err
}
