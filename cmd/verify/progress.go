package main

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/receiptverify/verify/verify/stream"
)

// progressBar draws one self-erasing status line on stderr, at most five
// times a second, and only when stderr is a terminal.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	on    bool
	last  time.Time
	drawn bool
}

func newProgressBar(stderr io.Writer) *progressBar {
	f, ok := stderr.(*os.File)
	on := false
	if ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	return &progressBar{w: stderr, on: on}
}

func (p *progressBar) update(pr stream.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	what := "verifying"
	if pr.Pass == 2 {
		what = "writing"
	}
	fmt.Fprintf(p.w, "\r\x1b[Kverify: %s: %d records, %.1f MB", what, pr.Records, float64(pr.Bytes)/1e6)
	p.drawn = true
}

func (p *progressBar) clear() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
}
