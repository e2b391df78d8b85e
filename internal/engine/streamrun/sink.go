package streamrun

import (
	"context"
	"crypto/sha256"

	"github.com/receiptverify/verify/verify"
)

// Sink is where an archive's run puts its records (RunTo): one type that
// keeps a little of each line between the passes, encodes each record's
// row on the verifying goroutines, and takes the records in input order.
// The analytics load is one.
type Sink interface {
	// Keep is called on each line verified, on the verifying goroutines of
	// the first pass, unless Options.KeepRaw reads the input again; what
	// it appends to dst comes back in Record.Kept (RunTo's Sink.Keep).
	// sum is the SHA-256 of raw, taken once for the run.
	Keep(dst, raw []byte, sum [sha256.Size]byte, res *verify.Result) []byte
	// Render encodes a verified record on the verifying goroutines; what
	// it appends to dst comes back in Record.Rendered
	// (RunTo's Sink.Render).
	Render(dst []byte, rec *Record) []byte
	// Emit takes each record that is not a blank line, in input order,
	// from one goroutine (Run's emit).
	Emit(rec *Record) error
}

// RunTo is Run with its records handed to sink.
func RunTo(ctx context.Context, v Verifier, srcs []Source, opts Options, sink Sink) (Summary, error) {
	opts.keep = nil
	if !opts.KeepRaw {
		opts.keep = sink.Keep
	}
	opts.Render, opts.renderRecord = nil, sink.Render
	return Run(ctx, v, srcs, opts, sink.Emit)
}
