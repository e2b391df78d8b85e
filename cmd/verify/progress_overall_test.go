package main

import (
	"io"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/engine/streamrun"
)

// A load of several files leads its one line with the whole run: files
// done of all, receipts so far, percent of the input bytes and the ETA of
// the run, then the file at hand's phase.
func TestProgressOverallLine(t *testing.T) {
	t.Parallel()
	p := &progressBar{w: io.Discard, on: true, load: true, total: 400e6,
		sizes: map[string]int64{"a": 100e6, "b": 100e6, "c": 100e6, "d": 100e6}}
	p.overall(4)
	p.runStart = time.Now().Add(-40 * time.Second)
	p.fileDone("a", 1000)
	p.update(streamrun.Progress{Pass: 1, Records: 500, Bytes: 100e6})
	p.update(streamrun.Progress{Pass: 2, Records: 500})
	p.done()
	got := p.line(time.Second)
	want := "1 of 4 file(s) done, 1000 receipts,  50% of 400.0 MB, ETA 40s; "
	if !strings.HasPrefix(got, want) {
		t.Errorf("line %q, want it to start %q", got, want)
	}
	one := &progressBar{w: io.Discard, on: true}
	one.overall(1)
	if one.files != 0 {
		t.Errorf("a load of one file leads with the run")
	}
}
