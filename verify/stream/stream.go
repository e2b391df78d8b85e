package stream

import (
	"context"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// The types of a run are defined with its engine in an internal package,
// which the command's sharded runs share; the names here are the same
// types.

// Source is one input: a name for messages (Name), a way to open it
// (Open), and whether it is JSON Lines (Lines) or one document. A source
// is opened once per pass, so it must be re-readable (the CLI spools
// standard input to a file). A source whose bytes are gzip (they begin
// 1f 8b, which no JSON text can) is read decompressed, its expansion
// bounded as the command bounds a .gz file; a bad or oversized gzip
// stream is that source's error. FileSource makes a Source from a path.
type Source = streamrun.Source

// FileSource is the Source of the file at path, read as the command reads
// it: one JSON document if the name ends in .json or .json.gz, JSON Lines
// otherwise; gzip content (by its bytes, whatever the name) decompressed
// with its expansion bounded, and a file named *.gz that is not gzip an
// error.
func FileSource(path string) Source { return streamrun.FileSource(path) }

// Options tune a run: Workers (0: all cores); Predecessors, receipts
// outside the input that links may name; Prior, an archive loaded before;
// Render or RenderRecord, an encoding of each result run on all cores and
// kept in Record.Rendered; KeepRaw, each record's bytes in Record.Raw;
// Keep, a little of each line's bytes kept between the passes;
// OmitSignatureHash; TempDir, where the spool lives; Progress, called as
// records are done. The zero value is a run on all cores.
type Options = streamrun.Options

// Record is one record of the input as Run emits it: its verification
// (the embedded *verify.Result) and the bytes that go with it (Raw and
// Offset with Options.KeepRaw, Rendered, Kept), and whether it is a
// duplicate delivery or the first receipt of a chain that starts before
// the input.
type Record = streamrun.Record

// Summary counts every record of the run: each line read ends in exactly
// one of Blank, Unreadable, Pass, Fail or Incomplete, and Reasons counts
// the reasons of the receipts that did not pass. Add sums two.
type Summary = streamrun.Summary

// Prior is what an archive loaded earlier (an audit database) knows about
// chains and nonces (Links, Nonces), so that a run judges its input
// against everything loaded before as one run over the whole would. It is
// asked between the two passes, in batches.
type Prior = streamrun.Prior

// PriorScopes is a Prior that also knows the chain scopes of the receipts
// it holds (Scopes): with it, a link to a receipt neither the input nor
// the archive holds is a gap when the archive holds earlier receipts of
// its chain.
type PriorScopes = streamrun.PriorScopes

// PriorLink is what an earlier archive knows of one chain hash.
type PriorLink = streamrun.PriorLink

// ScopeQuery asks PriorScopes about one chain scope.
type ScopeQuery = streamrun.ScopeQuery

// Progress is how far a run has come: its pass, records and bytes.
type Progress = streamrun.Progress

// SourceError is a run's error at one record: the source it came from
// (Source.Name) and its line.
type SourceError = streamrun.SourceError

// Errors of a run that cannot finish (Run wraps them with the place).
var (
	// ErrInputChanged: an input read a second time (Options.KeepRaw) is not
	// what the first pass read (a file rewritten during the run).
	ErrInputChanged = streamrun.ErrInputChanged
	// ErrSpool: the spool file could not be written or read back (a full
	// or failing temporary directory).
	ErrSpool = streamrun.ErrSpool
)

// Run verifies every source and calls emit once per record that is not a
// blank line, in input order, from a single goroutine. emit may keep the
// Record's Result; its Raw and Rendered bytes are the stream's, valid only
// until emit returns. A source that cannot be opened or read is reported
// through emit as an UNREADABLE result with line 0 and counted in
// FilesFailed; the run goes on.
func Run(ctx context.Context, v *verify.Verifier, srcs []Source, opts Options, emit func(*Record) error) (Summary, error) {
	return streamrun.Run(ctx, v, srcs, opts, emit)
}
