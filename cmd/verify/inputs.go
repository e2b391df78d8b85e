package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/receiptverify/verify/verify/stream"
)

// receiptExts are the file names a directory walk picks up.
var receiptExts = []string{".json", ".jsonl", ".ndjson"}

// isReceiptFile reports whether name is a receipt file, and whether it
// holds JSON Lines.
func isReceiptFile(name string) (ok, lines bool) {
	base := strings.TrimSuffix(name, ".gz")
	for _, ext := range receiptExts {
		if strings.HasSuffix(base, ext) {
			return true, ext != ".json"
		}
	}
	return false, true
}

// expandPaths turns PATH arguments into sources: files as given (any name
// but *.json is read as JSON Lines), directories walked in name order for
// receipt files, "-" spooled to a temporary file so it can be read twice.
// cleanup removes the spool.
func expandPaths(paths []string, stdin io.Reader) (srcs []stream.Source, cleanup func(), err error) {
	cleanup = func() {}
	for _, p := range paths {
		if p == "-" {
			tmp, err := os.CreateTemp("", "verify-stdin-*.jsonl")
			if err != nil {
				return nil, cleanup, &inputError{err}
			}
			prev := cleanup
			cleanup = func() { prev(); os.Remove(tmp.Name()) }
			_, err = io.Copy(tmp, stdin)
			tmp.Close()
			if err != nil {
				return nil, cleanup, &inputError{fmt.Errorf("stdin: %w", err)}
			}
			srcs = append(srcs, fileSource("stdin", tmp.Name(), true))
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, cleanup, &inputError{err}
		}
		if !fi.IsDir() {
			_, lines := isReceiptFile(p)
			srcs = append(srcs, fileSource(p, p, lines))
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				return nil
			}
			if ok, lines := isReceiptFile(d.Name()); ok {
				srcs = append(srcs, fileSource(path, path, lines))
			}
			return nil
		})
		if err != nil {
			return nil, cleanup, &inputError{err}
		}
	}
	return srcs, cleanup, nil
}

func fileSource(name, path string, lines bool) stream.Source {
	return stream.Source{Name: name, Lines: lines, Open: func() (io.ReadCloser, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		if !strings.HasSuffix(path, ".gz") {
			return f, nil
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: gzip: %w", name, err)
		}
		return gzipFile{zr, f}, nil
	}}
}

type gzipFile struct {
	*gzip.Reader
	f *os.File
}

func (g gzipFile) Close() error { g.Reader.Close(); return g.f.Close() }
