package main

import (
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
