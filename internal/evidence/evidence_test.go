package evidence

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"testing"
	"time"
)

func pack(t *testing.T, edit func(name string, data []byte) []byte) []byte {
	t.Helper()
	w := NewWriter()
	line := w.AddBlob("lines", []byte(`{"a":1}`))
	w.Add("queries/failures.sql", []byte("SELECT 1"))
	var b bytes.Buffer
	if err := w.WriteTo(&b, Manifest{From: "2026-11-01", To: "2026-11-01", Receipts: []Receipt{{Source: "r.jsonl", Line: 3, LineFile: line}}}, time.Unix(0, 0)); err != nil {
		t.Fatal(err)
	}
	if edit == nil {
		return b.Bytes()
	}
	// Rewrite the archive with one entry changed.
	zr, _ := gzip.NewReader(&b)
	tr := tar.NewReader(zr)
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	tw := tar.NewWriter(zw)
	for {
		h, err := tr.Next()
		if err != nil {
			break
		}
		var data bytes.Buffer
		data.ReadFrom(tr)
		d := edit(h.Name, data.Bytes())
		h.Size = int64(len(d))
		tw.WriteHeader(h)
		tw.Write(d)
	}
	tw.Close()
	zw.Close()
	return out.Bytes()
}

func TestPackRoundTrip(t *testing.T) {
	t.Parallel()
	p, err := Read(bytes.NewReader(pack(t, nil)))
	if err != nil {
		t.Fatal(err)
	}
	r := p.Manifest.Receipts[0]
	if string(p.Entries[r.LineFile]) != `{"a":1}` || len(p.Manifest.Files) != 2 {
		t.Errorf("read back %+v", p.Manifest)
	}
}

func TestPackRefused(t *testing.T) {
	t.Parallel()
	changed := pack(t, func(name string, d []byte) []byte {
		if name == "queries/failures.sql" {
			return []byte("SELECT 2")
		}
		return d
	})
	var e *Error
	if _, err := Read(bytes.NewReader(changed)); !errors.As(err, &e) || e.Entry != "queries/failures.sql" {
		t.Errorf("a changed entry: %v", err)
	}
	if _, err := Read(bytes.NewReader([]byte("not a pack"))); !errors.As(err, &e) {
		t.Errorf("not a pack: %v", err)
	}
}
