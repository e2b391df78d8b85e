package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/receiptverify/verify/internal/limits"
)

// TestSnapshotReadsTheFirstOpening: every reading of a snapshot gives the
// bytes the file had when first opened, whatever is appended or renamed
// since, and a file cut shorter is a read error naming it.
func TestSnapshotReadsTheFirstOpening(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.jsonl")
	writeFile(t, path, []byte("{\"a\":1}\n{\"a\":2}\n"))
	s := &snapshot{path: path}
	defer s.close()
	open := s.source(context.Background(), path)
	readAll := func() (string, error) {
		rc, err := open()
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	first, err := readAll()
	if err != nil || first != "{\"a\":1}\n{\"a\":2}\n" {
		t.Fatalf("first reading: %q, %v", first, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"a\":3}\n")
	f.Close()
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, []byte("{\"b\":1}\n"))
	if again, err := readAll(); err != nil || again != first {
		t.Errorf("after an append and a rename: %q, %v; want %q", again, err, first)
	}
	if err := os.Truncate(path+".1", 4); err != nil {
		t.Fatal(err)
	}
	_, err = readAll()
	var shrunk *errShrunk
	if !errors.As(err, &shrunk) || shrunk.path != path {
		t.Errorf("after truncation: %v, want an errShrunk naming %s", err, path)
	}
}

// TestSnapshotPastOpenLimit: past limits.MaxOpenInputs a snapshot closes
// its file between readings and reopens it: the same file, grown, reads
// as before; a file renamed away (another file now at the path) is an
// error naming the path, never the other file's bytes.
func TestSnapshotPastOpenLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.jsonl")
	writeFile(t, path, []byte("{\"a\":1}\n"))
	s := &snapshot{path: path, open: &openFiles{n: limits.MaxOpenInputs}}
	defer s.close()
	open := s.source(context.Background(), path)
	readAll := func() (string, error) {
		rc, err := open()
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	if got, err := readAll(); err != nil || got != "{\"a\":1}\n" {
		t.Fatalf("first reading: %q, %v", got, err)
	}
	if s.f != nil {
		t.Fatal("the file is still open past the limit")
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"a\":2}\n")
	f.Close()
	if got, err := readAll(); err != nil || got != "{\"a\":1}\n" {
		t.Errorf("grown: %q, %v", got, err)
	}
	os.Rename(path, path+".1")
	writeFile(t, path, []byte("{\"b\":1}\n{\"b\":2}\n"))
	_, err = readAll()
	var moved *errMoved
	if !errors.As(err, &moved) {
		t.Errorf("renamed away: %v, want an errMoved", err)
	}
}

// TestSnapshotAtAndSize: the content of a file that is not compressed
// reads at any offset (the lines a load stores after verifying), and its
// bytes as stored know their size, both the snapshot's, not what was
// appended since; a gzip file's content reads through only.
func TestSnapshotAtAndSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "agent.jsonl")
	writeFile(t, path, []byte("{\"a\":1}\n{\"a\":2}\n"))
	s := &snapshot{path: path}
	defer s.close()
	rc, err := s.source(context.Background(), path)()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{\"a\":3}\n")
	f.Close()
	ra, ok := rc.(io.ReaderAt)
	if !ok {
		t.Fatal("the content of a plain file is not an io.ReaderAt")
	}
	buf := make([]byte, 7)
	if _, err := ra.ReadAt(buf, 8); err != nil || string(buf) != "{\"a\":2}" {
		t.Errorf("ReadAt 8: %q, %v", buf, err)
	}
	if _, err := ra.ReadAt(buf, 16); err == nil {
		t.Errorf("ReadAt past the snapshot: %q, want an error", buf)
	}
	st, err := s.stored(context.Background())()
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sized, ok := st.(interface{ Stat() (os.FileInfo, error) })
	if !ok {
		t.Fatal("the stored bytes have no Stat")
	}
	if fi, err := sized.Stat(); err != nil || fi.Size() != 16 || !fi.Mode().IsRegular() {
		t.Errorf("Stat: %v, %v; want a regular file of 16 bytes", fi, err)
	}

	gz := filepath.Join(dir, "agent.jsonl.gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte("{\"a\":1}\n"))
	zw.Close()
	writeFile(t, gz, b.Bytes())
	zs := &snapshot{path: gz}
	defer zs.close()
	zrc, err := zs.source(context.Background(), gz)()
	if err != nil {
		t.Fatal(err)
	}
	defer zrc.Close()
	if _, ok := zrc.(io.ReaderAt); ok {
		t.Error("the content of a gzip file is an io.ReaderAt of its compressed bytes")
	}
}
