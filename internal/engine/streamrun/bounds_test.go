package streamrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify"
)

// TestMaxLinesPerFile: a file with more lines than the limit is cut there
// as unreadable, with an error naming the limit, and the next file is
// still read.
func TestMaxLinesPerFile(t *testing.T) {
	v := chainVerifier(t)
	var out []*verify.Result
	srcs := []Source{
		memSource("blank.jsonl", bytes.Repeat([]byte("\n"), 1000), true),
		memSource("next.jsonl", []byte("{}\n"), true),
	}
	sum, err := Run(context.Background(), v, srcs, Options{Workers: 2, maxLines: 100}, func(r *Record) error {
		out = append(out, r.Result)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesFailed != 1 || sum.Blank != 100 || sum.Files != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if len(out) != 2 || out[0].Line != 101 || !strings.Contains(out[0].Error, "more than 100 lines") || out[1].Source != "next.jsonl" {
		t.Fatalf("results: %+v", out)
	}
}

// TestMaxBlankLinesPerFile: a file with more blank lines than the limit
// is cut at the first one over it, as unreadable, with an error naming
// the limit; lines that are not blank do not count, a line of spaces and
// a CRLF does, and the next file is still read. (The command's
// TestBlankLinesBounded, a long test, does so at the real limit.)
func TestMaxBlankLinesPerFile(t *testing.T) {
	v := chainVerifier(t)
	var out []*verify.Result
	body := "{}\n" + strings.Repeat("\n", 60) + "{}\n" + strings.Repeat("  \r\n", 40) + "\n" + "{}\n"
	srcs := []Source{
		memSource("blank.jsonl", []byte(body), true),
		memSource("next.jsonl", []byte("{}\n"), true),
	}
	sum, err := Run(context.Background(), v, srcs, Options{Workers: 2, maxBlanks: 100}, func(r *Record) error {
		out = append(out, r.Result)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.FilesFailed != 1 || sum.Blank != 100 || sum.Files != 2 {
		t.Fatalf("summary %+v", sum)
	}
	if len(out) != 4 || out[0].Line != 1 || out[1].Line != 62 || out[2].Line != 103 || !strings.Contains(out[2].Error, "more than 100 blank lines in one file: refused") ||
		out[2].Source != "blank.jsonl" || out[3].Source != "next.jsonl" {
		t.Fatalf("results: %+v", out)
	}
}

// endless is a source that never ends a line.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	return len(p), nil
}

// TestCancelStopsEndlessLine: a source that never ends a line (/dev/zero)
// stops the run when it is cancelled, instead of being read for ever.
func TestCancelStopsEndlessLine(t *testing.T) {
	v := chainVerifier(t)
	ctx, cancel := context.WithCancel(context.Background())
	src := Source{Name: "zero", Lines: true, Open: func() (io.ReadCloser, error) { return io.NopCloser(endless{}), nil }}
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, v, []Source{src}, Options{Workers: 1}, func(*Record) error { return nil })
		done <- err
	}()
	time.Sleep(50 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not stop")
	}
}
