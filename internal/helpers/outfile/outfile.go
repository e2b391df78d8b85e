// Package outfile writes the files the tool produces (-o FILE, reports,
// exports, baselines) in one way: into the file the user named, whatever
// that file is. A regular file is replaced atomically, through a
// temporary file beside it renamed over it, and keeps its mode and owner;
// a new one gets the mode the umask gives (as the audit database does).
// A device, FIFO or socket is opened and written through: renaming over
// /dev/null would replace it for the whole machine. A symlink is followed
// and its target written as above. A file in a directory where no
// temporary file can be made (or that cannot be renamed over) is written
// in place, from a temporary copy made elsewhere, once the content is
// whole. So a reader never sees half of a run's output in a regular file,
// and a failed run (Abort) leaves the file as it was.
//
// The replace case is github.com/google/renameio/v2's PendingFile; this
// package adds what it leaves out: the owner kept, the other kinds of
// target, and the fallbacks to writing in place. renameio stays at
// v2.0.1: v2.0.2 calls os.Root's methods, which the Go vulnerability
// database flags for the Go this module names (GO-2026-6604, fixed in
// 1.26.9), so govulncheck in .ci/lint would fail.
package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/renameio/v2"
)

// how says where a File's bytes go until Commit.
type how int

const (
	replace how = iota // a temporary file beside the target, renamed over it
	through            // the target itself: a device, FIFO or socket
	inPlace            // a temporary file elsewhere, copied into the target
)

// File is an output being written. Write it, then Commit to put it in
// place or Abort to leave the target as it was.
type File struct {
	path    string // as the user named it, for messages
	target  string // the file written: path with symlinks followed
	how     how
	f       *os.File
	pending *renameio.PendingFile // replace: the temporary file beside the target
	done    bool
}

// Hooks the tests replace to take the paths a root user never takes.
var (
	createBeside  = newPending
	replaceTarget = (*renameio.PendingFile).CloseAtomicallyReplace
)

// newPending makes the temporary file beside target that replaces it,
// with perm less the umask.
func newPending(target string, perm fs.FileMode) (*renameio.PendingFile, error) {
	return renameio.NewPendingFile(target, renameio.WithTempDir(filepath.Dir(target)), renameio.WithPermissions(perm))
}

// Create starts writing path.
func Create(path string) (*File, error) {
	out := &File{path: path, target: path}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if t, err := filepath.EvalSymlinks(path); err == nil {
			out.target = t
		} else {
			// A dangling link: opening it at Commit creates its target.
			return out.startInPlace(false)
		}
	}
	fi, err := os.Stat(out.target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		pf, err := createBeside(out.target, 0o666)
		if err != nil {
			return nil, err
		}
		out.pending, out.f = pf, pf.File
		return out, nil
	case err != nil:
		return nil, err
	case fi.IsDir():
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a directory")}
	case !fi.Mode().IsRegular():
		f, err := os.OpenFile(out.target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		out.how, out.f = through, f
		return out, nil
	}
	pf, err := createBeside(out.target, fi.Mode().Perm())
	if err != nil {
		return out.startInPlace(true)
	}
	// The mode exactly as it was (the umask took bits off at create), and
	// the owner: one that cannot be kept means writing in place.
	err = pf.Chmod(fi.Mode().Perm())
	if err == nil {
		err = keepOwner(pf.File, fi)
	}
	if err != nil {
		pf.Cleanup()
		return out.startInPlace(true)
	}
	out.pending, out.f = pf, pf.File
	return out, nil
}

// startInPlace makes out one written in place at Commit, from a
// temporary file in the system's temporary directory. An existing
// target must be writable now, or the run would end in an error after
// all its work; one that does not exist yet is made only at Commit.
func (out *File) startInPlace(exists bool) (*File, error) {
	if exists {
		t, err := os.OpenFile(out.target, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		t.Close()
	}
	f, err := os.CreateTemp("", "verify-out-*")
	if err != nil {
		return nil, err
	}
	out.how, out.f = inPlace, f
	return out, nil
}

// Through reports whether the bytes go straight to the target (a
// device, FIFO or socket), so that an aborted output has reached it in
// part.
func (out *File) Through() bool { return out.how == through }

// Name is the path the user named.
func (out *File) Name() string { return out.path }

func (out *File) Write(p []byte) (int, error) { return out.f.Write(p) }

// Commit puts what was written in place: renamed over the target, copied
// into it, or (a device) already there.
func (out *File) Commit() error {
	if out.done {
		return nil
	}
	out.done = true
	switch out.how {
	case through:
		return out.f.Close()
	case inPlace:
		defer os.Remove(out.f.Name())
		defer out.f.Close()
		return copyInto(out.target, out.f)
	}
	err := replaceTarget(out.pending)
	if linkErr := (*os.LinkError)(nil); errors.As(err, &linkErr) {
		// Written and synced, but a directory that lets files be made
		// and not renamed over (sticky, or a bind-mounted file): copy
		// it in instead.
		err = copyFileInto(out.target, out.pending.Name())
	}
	out.pending.Cleanup()
	return err
}

// Abort drops what was written: the target is as it was, but for a
// device or FIFO, which has had it already.
func (out *File) Abort() {
	if out.done {
		return
	}
	out.done = true
	switch {
	case out.pending != nil:
		out.pending.Cleanup()
	case out.how == inPlace:
		out.f.Close()
		os.Remove(out.f.Name())
	default:
		out.f.Close()
	}
}

// WriteFile writes data to path as Create, Write and Commit do.
func WriteFile(path string, data []byte) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// copyFileInto copies the file named src into target.
func copyFileInto(target, src string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	return copyInto(target, f)
}

// copyInto writes the whole of src (from its start) over target's
// content, keeping target's inode, mode and owner.
func copyInto(target string, src *os.File) error {
	if _, err := src.Seek(0, io.SeekStart); err != nil {
		return err
	}
	t, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = io.Copy(t, src)
	if err == nil {
		err = t.Sync()
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s in place: %w", target, err)
	}
	return nil
}
