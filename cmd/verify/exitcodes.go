package main

// Exit codes. Every command ends with exactly one of them; run maps errors
// to codes in one place (exitCode in run.go).
//
//	code  meaning
//	0     every document or record was accepted (an empty input has none to reject)
//	1     at least one document or record was rejected (for receipts: any FAIL or
//	      unreadable line); attestation: no signature verifies under the key
//	2     receipts only: some receipt INCOMPLETE (could not be fully checked, or of a
//	      format this tool does not read), none FAIL
//	3     report and audit: no receipt at all on the day (or in the input), or (audit) no
//	      input file new or grown since the last load, and no finding: nothing to judge,
//	      which a scheduled job must not take for a clean day
//	64    usage error: unknown command or flag, unknown dialect, wrong argument count,
//	      a configuration, key, schema or baseline file refused (others than its
//	      owner can write it; see --trust-unsafe-permissions)
//	65    attestation: a file's SHA-256 differs from the attested one; explain --pack: an
//	      evidence pack whose entries are not as its pack.json lists them; show and explain
//	      --db: the archive file has changed since it was loaded (the bytes at a receipt's
//	      recorded place are not those loaded); a sharded run (receipts --emit,
//	      parts, finalize, summarize): a map step's inputs or trust material differ from the
//	      plan's, a map or folded directory is foreign, duplicated or of no shard of the plan, a
//	      part's or results file's SHA-256 or counts differ from its manifest, judgments do not
//	      judge each record exactly once
//	66    input unreadable: missing file, a directory, a read or gzip error (attestation: a
//	      file it names); a sharded run's plan, a shard of the plan, a part, the judgments or a folded shard's results cannot
//	      be read
//	74    I/O error on the audit database or on files written (load, report, export, audit),
//	      on the temporary spool, or on stdout (any command: the output stops short); an
//	      audit database of another schema version (an earlier one's: load it again)
//	130   interrupted (SIGINT or SIGTERM), any command and phase: the run stops,
//	      removes its temporary files and leaves unfinished outputs unwritten, and
//	      load rolls back the file it was loading
const (
	exitOK         = 0
	exitRejected   = 1
	exitIncomplete = 2
	exitEmpty      = 3
	exitUsage      = 64 // EX_USAGE from sysexits.h
	exitChanged    = 65 // EX_DATAERR from sysexits.h
	exitDataErr    = exitChanged
	exitNoInput    = 66  // EX_NOINPUT from sysexits.h
	exitIOErr      = 74  // EX_IOERR from sysexits.h
	exitInterrupt  = 130 // 128 + SIGINT, as shells report an interrupted command
)

// ioError is a database or output file that could not be opened, read or
// written: exit code 74. An *dberr.IOError anywhere in the chain maps
// to the same code.
type ioError struct{ err error }

func (e *ioError) Error() string { return e.err.Error() }
func (e *ioError) Unwrap() error { return e.err }

// interruptedError is a run stopped by SIGINT or SIGTERM: exit code 130.
type interruptedError struct{ err error }

func (e *interruptedError) Error() string { return e.err.Error() }
func (e *interruptedError) Unwrap() error { return e.err }

// emptyError is a report of a day with no receipt at all and no finding:
// exit code 3, even with --no-fail, since a delivery that did not arrive
// looks like a clean day otherwise.
type emptyError struct{ err error }

func (e *emptyError) Error() string { return e.err.Error() }
func (e *emptyError) Unwrap() error { return e.err }
