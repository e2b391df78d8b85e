package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/gunzip"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"
)

// progressBar draws one self-erasing status line on stderr, only when
// stderr is a terminal and --no-progress is not given: the phase, how far
// it has come in percent of what it has to do, its rate and the time it
// still needs. Verifying is measured in bytes of input (a gzip file by the
// size its trailer records), writing or loading in records of the first
// pass. A phase with nothing to count (the database commit, a report) shows
// its elapsed time, redrawn every quarter second so that it never looks
// stuck. A text line written to stdout by the command calls clear first.
type progressBar struct {
	mu      sync.Mutex
	w       io.Writer
	on      bool
	load    bool  // pass 2 inserts into a database, then commits
	total   int64 // input bytes, 0 when unknown (standard input)
	records int64 // records of the first pass: the second's total

	// A load of several files: the line leads with the whole run (files
	// done of files, receipts, percent and ETA by input bytes).
	files     int              // inputs, 0 when not a load of several
	filesDone int              // files reported done (fileDone)
	bytesDone int64            // input bytes of the files done
	receipts  int64            // records of the files done
	sizes     map[string]int64 // input bytes by name
	runStart  time.Time
	pass1     int64 // bytes the current file's first pass read

	phase  string
	commit commitState // a file's commit, while it lasts
	start  time.Time   // of the phase
	cur    streamrun.Progress
	drawn  bool
	last   time.Time
	stop   chan struct{}
}

// newProgress is the progress line of a command with --no-progress,
// over the sources it will read.
func newProgress(ctx *cli.Context, srcs []streamrun.Source) *progressBar {
	p := newProgressBar(ctx.App.ErrWriter)
	if ctx.Bool("no-progress") {
		p.on = false
	}
	p.sizes = map[string]int64{}
	for _, s := range srcs {
		n, ok := inputSize(s.Name)
		if !ok {
			p.total = 0
			break
		}
		p.total += n
		p.sizes[s.Name] = n
	}
	p.runStart = time.Now()
	return p
}

// overall makes the line of a load of files lead with the whole run.
func (p *progressBar) overall(files int) {
	if files > 1 {
		p.files = files
	}
}

// fileDone counts a load's file done, its records among the receipts.
func (p *progressBar) fileDone(name string, records int64) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.filesDone++
	p.receipts += records
	p.bytesDone += p.sizes[name]
	p.pass1, p.cur = 0, streamrun.Progress{}
}

func newProgressBar(stderr io.Writer) *progressBar {
	on := false
	under := stderr
	if l, ok := under.(*lockedWriter); ok {
		under = l.w
	}
	if f, ok := under.(*os.File); ok {
		on = term.IsTerminal(int(f.Fd()))
	}
	return &progressBar{w: stderr, on: on}
}

// inputSize is the number of bytes the stream will read from the file
// name: its size, or for gzip the size of the data its trailer records
// (modulo 4 GiB, so a larger file shows as more than 100 % done; the rate
// stays right).
func inputSize(name string) (int64, bool) {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return 0, false
	}
	if fi.Size() < 18 || !gunzip.FileIsGzip(name) {
		return fi.Size(), true
	}
	f, err := os.Open(name)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	var isize [4]byte
	if _, err := f.ReadAt(isize[:], fi.Size()-4); err != nil {
		return 0, false
	}
	return int64(binary.LittleEndian.Uint32(isize[:])), true
}

// update is streamrun.Options.Progress.
func (p *progressBar) update(pr streamrun.Progress) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pr.Pass != p.cur.Pass {
		p.start = time.Now()
		p.phase = ""
		p.startTicker()
	}
	if pr.Pass == 1 {
		p.records = pr.Records
		p.pass1 = pr.Bytes
	}
	p.cur = pr
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.draw()
}

// commitState is a file's commit phase (analytics.LoadOptions.Committing):
// its percent is how much of the spooled rows DuckDB has read
// (bytesRead since it began, of Read).
type commitState struct {
	on    bool
	c     analytics.Commit
	base  int64 // bytesRead as it began; -1 when not known
	start time.Time
}

// committing is analytics.LoadOptions.Committing: the line shows the
// file's commit until committed ends it.
func (p *progressBar) committing(c analytics.Commit) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.commit = commitState{on: true, c: c, base: -1, start: time.Now()}
	if n, ok := bytesRead(); ok && c.Read > 0 {
		p.commit.base = n
	}
	p.startTicker()
	p.draw()
}

// committed ends the commit line (OnFile).
func (p *progressBar) committed() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.commit.on = false
}

// line is the status line of a commit; read is bytesRead now, or
// -1.
func (c *commitState) line(elapsed time.Duration, read int64) string {
	s := fmt.Sprintf("committing %d records to the database", c.c.Records)
	if c.base < 0 || read < 0 {
		return fmt.Sprintf("%s (%s)", s, elapsed.Truncate(time.Second))
	}
	got := read - c.base
	if got >= c.c.Read {
		return fmt.Sprintf("%s: rows read, writing (%s)", s, elapsed.Truncate(time.Second))
	}
	done := float64(got) / float64(c.c.Read)
	return fmt.Sprintf("%s %3.0f%%: %.1f of %.1f MB of rows read%s",
		s, 100*done, float64(got)/1e6, float64(c.c.Read)/1e6, eta(elapsed, done))
}

// setPhase names a phase with nothing to count: "reporting day 2 of 5".
func (p *progressBar) setPhase(phase string) {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.phase, p.start = phase, time.Now()
	p.startTicker()
	p.draw()
}

// startTicker redraws the line every quarter second until done.
func (p *progressBar) startTicker() {
	if p.stop != nil {
		return
	}
	p.stop = make(chan struct{})
	go func(stop chan struct{}) {
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				p.mu.Lock()
				if time.Since(p.last) >= 200*time.Millisecond {
					p.draw()
				}
				p.mu.Unlock()
			}
		}
	}(p.stop)
}

// draw writes the line; p.mu is held.
func (p *progressBar) draw() {
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r\x1b[Kverify: %s", p.line(time.Since(p.start)))
	p.drawn = true
}

// line is the status line after "verify: ": a load of several files
// leads with the whole run, then the phase of the file at hand.
func (p *progressBar) line(elapsed time.Duration) string {
	if p.files == 0 {
		return p.phaseLine(elapsed)
	}
	records := p.receipts
	if p.cur.Pass == 1 {
		records += p.cur.Records
	}
	s := fmt.Sprintf("%d of %d file(s) done, %d receipts", p.filesDone, p.files, records)
	if p.total > 0 {
		cur := float64(p.pass1) / 2 // verifying is about half a file's time
		if p.cur.Pass == 2 && p.records > 0 {
			cur += float64(p.pass1) / 2 * min(1, float64(p.cur.Records)/float64(p.records))
		}
		done := min(1, (float64(p.bytesDone)+cur)/float64(p.total))
		s += fmt.Sprintf(", %3.0f%% of %.1f MB%s", 100*done, float64(p.total)/1e6, eta(time.Since(p.runStart), done))
	}
	return s + "; " + p.phaseLine(elapsed)
}

// phaseLine is the status of the phase at hand.
func (p *progressBar) phaseLine(elapsed time.Duration) string {
	if p.commit.on {
		read := int64(-1)
		if n, ok := bytesRead(); ok {
			read = n
		}
		return p.commit.line(time.Since(p.commit.start), read)
	}
	if p.phase != "" {
		return fmt.Sprintf("%s (%s)", p.phase, elapsed.Truncate(time.Second))
	}
	secs := max(elapsed.Seconds(), 0.001)
	pr := p.cur
	if pr.Pass == 1 {
		mb := float64(pr.Bytes) / 1e6
		s := fmt.Sprintf("verifying: %d records, %.1f MB, %.1f MB/s", pr.Records, mb, mb/secs)
		if p.total > 0 {
			done := float64(pr.Bytes) / float64(p.total)
			s = fmt.Sprintf("verifying %3.0f%%: %.1f of %.1f MB, %.1f MB/s, %d records%s",
				100*done, mb, float64(p.total)/1e6, mb/secs, pr.Records, eta(elapsed, done))
		}
		return s
	}
	what := "judging chains, writing results"
	if p.load {
		what = "judging chains, loading into the database"
	}
	if p.records == 0 {
		return fmt.Sprintf("%s: %d records", what, pr.Records)
	}
	if p.load && pr.Records >= p.records {
		return fmt.Sprintf("committing %d records to the database (%s)", pr.Records, elapsed.Truncate(time.Second))
	}
	done := float64(pr.Records) / float64(p.records)
	return fmt.Sprintf("%s %3.0f%%: %d of %d records, %.0f records/s%s",
		what, 100*done, pr.Records, p.records, float64(pr.Records)/secs, eta(elapsed, done))
}

// eta is ", ETA 1m05s" for a phase done to fraction done after elapsed.
func eta(elapsed time.Duration, done float64) string {
	if done <= 0.01 || done >= 1 || elapsed < time.Second {
		return ""
	}
	left := time.Duration(float64(elapsed) * (1 - done) / done)
	return ", ETA " + left.Round(time.Second).String()
}

// clear erases the line, before the command writes one of its own; the
// ticker draws it again.
func (p *progressBar) clear() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.erase()
}

func (p *progressBar) erase() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.drawn = false
	}
	p.last = time.Now()
}

// done erases the line for good.
func (p *progressBar) done() {
	if !p.on {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop != nil {
		close(p.stop)
		p.stop = nil
	}
	p.erase()
}
