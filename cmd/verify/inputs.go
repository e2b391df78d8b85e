package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/ctxio"
	"github.com/receiptverify/verify/internal/helpers/termtext"
)

// expandPaths turns PATH arguments into sources: files as given (any name
// but *.json is read as JSON Lines), directories walked in name order for
// receipt files; "-" and named pipes (the shell's <(command)) are spooled
// to temporary files so that they can be read twice. cleanup removes the
// spools. The files a walk passes over, for their names, are listed on
// stderr, so that a receipt file misnamed (say, receipts.log) is not left
// out unseen. Every read of the sources checks ctx, and a copy of standard
// input stops when ctx is done (an *interruptedError).
func expandPaths(ctx context.Context, paths []string, stdin io.Reader, stderr io.Writer) (srcs []streamrun.Source, cleanup func(), err error) {
	set, cleanup, err := expandInputs(ctx, paths, stdin, stderr, walkOptions{})
	return set.srcs, cleanup, err
}

// inputSet is what the PATH arguments expand to: the sources, the
// snapshots of the files among them by source name, and the files the
// directory walks held but did not read.
type inputSet struct {
	srcs      []streamrun.Source
	snapshots map[string]*snapshot
	skipped   []string
}

// expandInputs is expandPaths with the walk's name filters, keeping the
// snapshots and the files passed over. A path that cannot be read is a
// source that fails alone, named by its path: the others are read.
func expandInputs(ctx context.Context, paths []string, stdin io.Reader, stderr io.Writer, wo walkOptions) (set inputSet, cleanup func(), err error) {
	set.snapshots = map[string]*snapshot{}
	open := &openFiles{}
	var srcs []streamrun.Source
	cleanup = func() {}
	defer func() { set.srcs = srcs }()
	fileSource := func(ctx context.Context, name, path string, lines bool) streamrun.Source {
		s := &snapshot{path: path, open: open}
		set.snapshots[name] = s
		prev := cleanup
		cleanup = func() { prev(); s.close() }
		return streamrun.Source{Name: name, Lines: lines, Open: s.source(ctx, name)}
	}
	// spool copies a stream that can be read only once into a temporary
	// file, for the sources' two passes. The file is unlinked as soon as it
	// is made and read through its descriptor, so nothing is left behind
	// whatever ends the run (SIGKILL included).
	// A read error is the input's (exit 66); the temporary file's are
	// the machine's (exit 74), as for the spool of results.
	spool := func(name string, r io.Reader, lines bool) error {
		tmp, err := os.CreateTemp("", "verify-input-*")
		if err != nil {
			return &ioError{fmt.Errorf("%s: copying it to a temporary file: %w", name, err)}
		}
		unlinked := os.Remove(tmp.Name()) == nil
		prev := cleanup
		cleanup = func() {
			prev()
			tmp.Close()
			if !unlinked {
				os.Remove(tmp.Name())
			}
		}
		in := &readErrors{r: r}
		copied := make(chan error, 1)
		var n int64
		// A read of standard input may block for ever: the copy runs on
		// its own, so that a signal ends the wait for it.
		go func() {
			var err error
			n, err = io.Copy(tmp, ctxio.Reader(ctx, in))
			copied <- err
		}()
		select {
		case err = <-copied:
		case <-ctx.Done():
			return &interruptedError{fmt.Errorf("%s: interrupted while copying it to a temporary file", name)}
		}
		switch {
		case ctx.Err() != nil:
			return &interruptedError{fmt.Errorf("%s: interrupted while copying it to a temporary file", name)}
		case in.err != nil:
			return &inputError{fmt.Errorf("%s: %w", name, in.err)}
		case err != nil:
			return &ioError{fmt.Errorf("%s: copying it to a temporary file: %w", name, err)}
		}
		size := n
		srcs = append(srcs, streamrun.Source{Name: name, Lines: lines, Open: func() (io.ReadCloser, error) {
			return io.NopCloser(ctxio.Reader(ctx, io.NewSectionReader(tmp, 0, size))), nil
		}})
		return nil
	}
	for _, p := range paths {
		if p == "-" {
			if err := spool("stdin", stdin, true); err != nil {
				return set, cleanup, err
			}
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			_, lines := isReceiptFile(p)
			srcs = append(srcs, failedSource(p, lines, err))
			continue
		}
		if fi.Mode()&fs.ModeNamedPipe != 0 { // the shell's <(command): read once, here
			_, lines := isReceiptFile(p)
			f, err := openWaiting(ctx, p)
			var interrupted *interruptedError
			if errors.As(err, &interrupted) {
				return set, cleanup, err
			}
			if err != nil {
				srcs = append(srcs, failedSource(p, lines, err))
				continue
			}
			err = spool(p, f, lines)
			f.Close()
			if err != nil {
				return set, cleanup, err
			}
			continue
		}
		if !fi.IsDir() {
			_, lines := isReceiptFile(p)
			srcs = append(srcs, fileSource(ctx, p, p, lines))
			continue
		}
		w := dirWalk{ctx: ctx, srcs: srcs, opts: wo, fileSource: fileSource}
		filepath.WalkDir(p, w.visit) // visit keeps every error as a source, and never stops the walk
		oldestFirst(w.srcs[len(srcs):])
		srcs = w.srcs
		set.skipped = append(set.skipped, w.skipped...)
		reportSkipped(stderr, p, w.skipped)
	}
	return set, cleanup, nil
}

// readErrors keeps the error of r, to tell it from the writer's in a copy.
type readErrors struct {
	r   io.Reader
	err error
}

func (e *readErrors) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF {
		e.err = err
	}
	return n, err
}

// dirWalk collects the receipt files of a directory walk as sources, and
// the names of the files it passes over.
type dirWalk struct {
	ctx        context.Context
	srcs       []streamrun.Source
	skipped    []string
	opts       walkOptions
	fileSource func(ctx context.Context, name, path string, lines bool) streamrun.Source
}

// visit is the walk's fs.WalkDirFunc. A directory that cannot be listed
// is an unreadable input, as a file that cannot be opened is: it is
// counted and reported, and the walk goes on with the rest of the tree
// (and with what of that directory was listed before the error).
func (w *dirWalk) visit(path string, d fs.DirEntry, err error) error {
	if err != nil {
		w.srcs = append(w.srcs, failedSource(path, true, err))
		return nil
	}
	if d.IsDir() {
		return nil
	}
	ok, lines := w.opts.reads(d.Name())
	if !ok {
		w.skipped = append(w.skipped, path)
		return nil
	}
	if err := irregular(path, d); err != nil {
		w.srcs = append(w.srcs, failedSource(path, lines, err))
		return nil
	}
	w.srcs = append(w.srcs, w.fileSource(w.ctx, path, path, lines))
	return nil
}

// reportSkipped writes one line naming the files a walk of dir passed
// over (the first few of them, and how many more).
func reportSkipped(stderr io.Writer, dir string, skipped []string) {
	if len(skipped) == 0 {
		return
	}
	const named = 5
	names := skipped[:min(len(skipped), named)]
	more := ""
	if len(skipped) > named {
		more = fmt.Sprintf(" and %d more", len(skipped)-named)
	}
	fmt.Fprintf(stderr, "verify: %s: %d file(s) not read (%s; --include GLOB reads others): %s%s\n",
		termtext.Escape(dir), len(skipped), receiptNamesHelp, termtext.Escape(strings.Join(names, ", ")), more)
}

// irregular says why a file found by walking a directory is not read: it
// is not a regular file, even through a symbolic link. Opening a named
// pipe blocks until something writes to it, and a device may never end,
// so a walk reads neither; such a file is reported as unreadable. A path
// named on the command line is read whatever it is (a named pipe copied
// first, see expandPaths).
func irregular(path string, d fs.DirEntry) error {
	if d.Type().IsRegular() {
		return nil
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().IsRegular() {
		return nil // a dangling link: opening it reports that
	}
	kind := "not a regular file"
	switch m := fi.Mode(); {
	case m.IsDir():
		kind = "a directory"
	case m&fs.ModeNamedPipe != 0:
		kind = "a named pipe"
	case m&fs.ModeSocket != 0:
		kind = "a socket"
	case m&fs.ModeDevice != 0:
		kind = "a device"
	}
	return fmt.Errorf("%s is %s, not read", path, kind)
}

// failedSource is a source that cannot be read, for err.
func failedSource(name string, lines bool, err error) streamrun.Source {
	return streamrun.Source{Name: name, Lines: lines, Open: func() (io.ReadCloser, error) { return nil, err }}
}
