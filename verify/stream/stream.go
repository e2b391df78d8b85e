package stream

import (
	"context"
	"errors"
	"io"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// The engine of a run lives in an internal package, which the command's
// loads and sharded runs share; the types here are this package's own,
// converted at the call.

// Source is one input: a name for messages, a way to open it, and whether
// it is JSON Lines or one document. A source is opened once per pass, so
// it must be re-readable (the CLI spools standard input to a file). A
// source whose bytes are gzip (they begin 1f 8b, which no JSON text can)
// is read decompressed, its expansion bounded as the command bounds a .gz
// file; a bad or oversized gzip stream is that source's error. FileSource
// makes a Source from a path.
type Source struct {
	Name  string                        // in messages and in each Result's Source
	Open  func() (io.ReadCloser, error) // called once per pass
	Lines bool                          // JSON Lines; otherwise the whole source is one document
}

// FileSource is the Source of the file at path, read as the command reads
// it: one JSON document if the name ends in .json or .json.gz, JSON Lines
// otherwise; gzip content (by its bytes, whatever the name) decompressed
// with its expansion bounded, and a file named *.gz that is not gzip an
// error.
func FileSource(path string) Source { return Source(streamrun.FileSource(path)) }

// Options tune a run. The zero value is a run on all cores.
type Options struct {
	// Workers verifying (0: all cores).
	Workers int
	// Predecessors are receipts outside the input that links may name
	// (the command's --predecessor): they are indexed, not reported.
	Predecessors [][]byte
	// Progress, if set, is called from one goroutine as records are done.
	Progress func(Progress)
}

// Progress is how far a run has come.
type Progress struct {
	Pass    int   // 1 verifying, 2 judging chains and writing
	Records int64 // records done in this pass
	Bytes   int64 // input bytes read in this pass
}

// Record is one record of the input as Run emits it: its verification and
// what the run judged of it across the input.
type Record struct {
	*verify.Result
	// Duplicate: the receipt is an earlier one of the input delivered
	// again (Summary.Duplicates). ChainOutside: it is the first receipt of
	// a chain that starts before the input (Summary.ChainsOutside).
	Duplicate, ChainOutside bool
}

// Summary counts every record of the run: each line read ends in exactly
// one of Blank, Unreadable, Pass, Fail or Incomplete, and Reasons counts
// the reasons of the receipts that did not pass.
type Summary struct {
	Files       int                     `json:"files"`
	FilesFailed int                     `json:"files_unreadable"` // sources that could not be opened or read
	Lines       int64                   `json:"lines"`
	Blank       int64                   `json:"blank"`
	Receipts    int64                   `json:"receipts"` // verified: Pass + Fail + Incomplete
	Pass        int64                   `json:"pass"`
	Fail        int64                   `json:"fail"`
	Incomplete  int64                   `json:"incomplete"`
	Unreadable  int64                   `json:"unreadable"`
	Reasons     map[verify.Reason]int64 `json:"reasons"`
	// UnknownFormat counts the Incomplete receipts no format's detector
	// claimed (reason unknown_format): of a producer this tool does not
	// read, not checked, which is not the same as failed.
	UnknownFormat int64 `json:"unknown_format"`
	// Duplicates counts receipts that are an earlier receipt of the input
	// delivered again: the same chain hash, so the same signed bytes. They
	// are judged as the first delivery was, not as replays or forks.
	Duplicates int64 `json:"duplicates"`
	// ChainsOutside counts chains whose first receipt in the input names
	// a predecessor the input does not hold: chains that start before the
	// input, their first link not checked.
	ChainsOutside int64 `json:"chains_outside"`
}

// Add counts o in s as well: the summary of two runs, every count and
// reason summed.
func (s *Summary) Add(o Summary) {
	(*streamrun.Summary)(s).Add(streamrun.Summary(o))
}

// SourceError is a run's error at one record: the source it came from
// (Source.Name) and its line.
type SourceError struct {
	Source string
	Line   int
	Err    error
}

func (e *SourceError) Error() string { return (*streamrun.SourceError)(e).Error() }
func (e *SourceError) Unwrap() error { return e.Err }

// Errors of a run that cannot finish (Run wraps them with the place).
var (
	// ErrInputChanged: an input read a second time is not what the first
	// pass read (a file rewritten during the run).
	ErrInputChanged = streamrun.ErrInputChanged
	// ErrSpool: the spool file could not be written or read back (a full
	// or failing temporary directory).
	ErrSpool = streamrun.ErrSpool
)

// Run verifies every source and calls emit once per record that is not a
// blank line, in input order, from a single goroutine. emit may keep the
// Record's Result, not the Record. A source that cannot be opened or read
// is reported through emit as an UNREADABLE result with line 0 and counted
// in FilesFailed; the run goes on.
func Run(ctx context.Context, v *verify.Verifier, srcs []Source, opts Options, emit func(*Record) error) (Summary, error) {
	rs := make([]streamrun.Source, len(srcs))
	for i, s := range srcs {
		rs[i] = streamrun.Source(s)
	}
	ro := streamrun.Options{Workers: opts.Workers, Predecessors: opts.Predecessors}
	if opts.Progress != nil {
		ro.Progress = func(p streamrun.Progress) { opts.Progress(Progress(p)) }
	}
	var rec Record // emit keeps its Result, not the Record
	sum, err := streamrun.Run(ctx, v, rs, ro, func(r *streamrun.Record) error {
		rec = Record{Result: r.Result, Duplicate: r.Duplicate, ChainOutside: r.ChainOutside}
		return emit(&rec)
	})
	var se *streamrun.SourceError
	if errors.As(err, &se) && err == error(se) {
		err = (*SourceError)(se)
	}
	return Summary(sum), err
}
