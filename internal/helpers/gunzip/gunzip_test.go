package gunzip

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"testing"

	"github.com/receiptverify/verify/internal/limits"
)

func gz(t *testing.T, data []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// TestBound: content up to the limit reads whole; one byte more is refused.
func TestBound(t *testing.T) {
	t.Parallel()
	for _, n := range []int{0, 10, limits.GzipSlackBytes} {
		data := bytes.Repeat([]byte("\n"), n)
		z := gz(t, data)
		r, err := NewReader(bytes.NewReader(z), int64(len(z)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(r)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: %d read, %v", n, len(got), err)
		}
	}
	z := gz(t, bytes.Repeat([]byte("\n"), limits.GzipSlackBytes+1))
	r, err := NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	var tl *TooLargeError
	if !errors.As(err, &tl) || len(got) != limits.GzipSlackBytes {
		t.Fatalf("%d read, %v", len(got), err)
	}
	if limits.MaxGzipContent(1<<30) != 100<<30 || limits.MaxGzipContent(1<<62) != 1<<62 {
		t.Fatal("MaxGzipContent")
	}
}

// TestBoundUnknownSize: of a stream of unknown size, content within the
// ratio of the compressed bytes read reads whole however long; a bomb is
// refused once it passes the ratio, long before its end.
func TestBoundUnknownSize(t *testing.T) {
	t.Parallel()
	// Incompressible-ish content: the ratio is far below the limit.
	data := make([]byte, 3*limits.GzipSlackBytes)
	for i := range data {
		data[i] = byte(i*7919>>3) ^ byte(i>>11)
	}
	z := gz(t, data)
	r, err := NewReader(bytes.NewReader(z), -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("%d of %d bytes read: %v", len(got), len(data), err)
	}

	bomb := gz(t, bytes.Repeat([]byte("\n"), 64*limits.GzipSlackBytes))
	r, err = NewReader(bytes.NewReader(bomb), -1)
	if err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(r)
	var tl *TooLargeError
	if !errors.As(err, &tl) {
		t.Fatalf("a bomb of ratio %d read whole: %d bytes, %v", 64*limits.GzipSlackBytes/len(bomb), len(got), err)
	}
	if int64(len(got)) > limits.MaxGzipContent(int64(len(bomb))) {
		t.Fatalf("%d bytes read past the bound of %d compressed bytes", len(got), len(bomb))
	}
}
