// Package dberr holds the errors of the audit database and of the loads
// into it that the command tells apart (errors.As), each mapped to its
// exit code and hint there.
package dberr

import (
	"errors"
	"fmt"
)

// ErrNoTrust is a receipt loaded before the trust material was recorded.
var ErrNoTrust = errors.New("the database records no trust material for this receipt")

// IOError is a database that could not be opened, read or written (as
// opposed to input that could not be read). The CLI maps it to exit code
// 74.
type IOError struct {
	Op   string // "open", "create schema", "load", ...
	Path string // the database or the input file concerned
	Err  error
}

func (e *IOError) Error() string {
	if e.Path == "" {
		return "database " + e.Op + ": " + e.Err.Error()
	}
	return "database " + e.Op + ": " + e.Path + ": " + e.Err.Error()
}

func (e *IOError) Unwrap() error { return e.Err }

// ArchiveError is a receipt whose line the database does not hold and
// its archive file cannot give: the file is not where it was loaded from
// (Moved), or it is but holds other bytes at the line's place than those
// loaded (Changed, the line's SHA-256 differs).
type ArchiveError struct {
	Path    string // the archive file, as looked for
	Line    int64
	Changed bool // false: moved, deleted or unreadable
	Err     error
}

func (e *ArchiveError) Error() string {
	if e.Changed {
		return fmt.Sprintf("%s: the archive file has changed since it was loaded: line %d is not the receipt loaded (%v)", e.Path, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: the archive file cannot be read (moved or deleted since it was loaded?): %v", e.Path, e.Err)
}

func (e *ArchiveError) Unwrap() error { return e.Err }

// WriteError is an output file or directory (report, export) that could
// not be written. The CLI maps it, like *IOError, to exit code 74.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return "write " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// InputChangedError is an input that was not the same when read again
// during the load (rewritten in place): nothing of it is recorded, and
// the next load reads it anew.
type InputChangedError struct {
	Path string
	Line int64 // the first line found different; 0 when not known
}

func (e *InputChangedError) Error() string {
	at := ""
	if e.Line > 0 {
		at = fmt.Sprintf(" (line %d)", e.Line)
	}
	return fmt.Sprintf("changed while it was being verified%s: rewritten in place; nothing of it recorded, the next load reads it again", at)
}

// ChangedError is an input whose already-loaded part has changed since it
// was loaded: the content stored from it and the file disagree at Line.
// Nothing of the file is loaded; the CLI exits 66.
type ChangedError struct {
	Path   string // the input
	Stored string // the path it was loaded from
	Line   int64  // the first line that differs; 0 when no stored line tells
	Lines  int64  // lines stored from it
}

func (e *ChangedError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("its first %d line(s), loaded before from %s, have changed since; nothing loaded", e.Lines, e.Stored)
	}
	return fmt.Sprintf("line %d differs from the line loaded before from %s (%d line(s) stored); the already-loaded part of a file must not change; nothing loaded", e.Line, e.Stored, e.Lines)
}
