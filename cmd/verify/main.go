// Command verify checks signed AI-agent tool-call receipts offline and
// recomputes the canonical forms and fingerprints they are built from.
//
// Run `verify --help` for the commands. Results go to stdout, diagnostics
// to stderr prefixed "verify:"; the exit codes are listed in exitcodes.go.
package main

import "os"

func main() { os.Exit(run(os.Args, os.Stdin, os.Stdout, os.Stderr)) }
