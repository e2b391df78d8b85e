// Command receiptgen writes a deterministic corpus of signed Asqav
// receipts with planted anomalies and the truth about them, for testing
// and benchmarking verify:
//
//	receiptgen --out corpus --n 1000 --rate 0.05 --seed 1
//
// The same flags write the same bytes. See package receiptgen for the
// layout and the truth.jsonl schema. A summary goes to stdout, diagnostics
// to stderr prefixed "receiptgen:". Exit codes: 0 written, 1 generation or
// write failure, 64 usage error.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdout, os.Stderr)) }
