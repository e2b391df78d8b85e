// Package limits is the index of every size, depth and count limit the
// tool applies to untrusted input. Input is hostile: each limit exists so
// that a crafted document gets a clear error instead of exhausting memory,
// stack or time.
//
// The limits that several packages apply are defined here. Those that one
// package enforces, and whose values that package's errors and doc name,
// stay beside it and are listed here, each with where it is:
//
//	verify/keys    MaxFileBytes               8 MiB    one key file
//	verify/keys    MaxEntriesPerFile          4096     entries of one key file
//	verify/keys    MaxKeys                    65536    keys of all key files together
//	verify/keys    MaxIDBytes                 1024     a kid, agent, issuer or org id, or DID
//	verify/sigalg  MaxEncodedLen              64 KiB   a base64 or hex signature or key
//	verify/sigalg  MaxBase58Len               8192     a base58btc (multibase) string
//	verify/sigalg  MaxRSABits                 16384    an RSA key's modulus (MinRSABits 2048 the least)
//	verify/canon   undologSerdeMaxDepth       127      nesting, UndoLog Rust dialects (serde_json's)
//	verify/canon   undologPythonMaxIntDigits  4300     digits of an integer, UndoLog Python dialects and agentreceipts-py (CPython's)
//	cmd/verify     maxTrustFile               64 MiB   a key, schema or predecessor file, read whole
//	internal/shard maxPlanBytes               64 MiB   a sharded run's plan file, read whole
//	internal/analytics/baseline maxBaselineBytes        8 MiB    a --baseline file, read whole
//	internal/attest MaxEnvelopeBytes          256 MiB  an attestation file, read whole
//	internal/evidence MaxEntries              100000   entries of an evidence pack
//	internal/evidence MaxBytes                1 GiB    an evidence pack's entries, decompressed
//	verify/tlog    MaxPath                    64       hashes of an inclusion proof's audit path
//	verify/tlog    MaxConsistency             128      hashes of a consistency proof
//	internal/helpers/cosefile MaxBytes        ~12 MiB  a .cose file, read whole (its base64url line fits MaxLineBytes)
//
// A test fails when a limit named Max… is defined elsewhere without a line
// here, or is missing from the limits table in docs/limits.md.
package limits

const (
	// MaxDocumentBytes is the largest single JSON document any dialect accepts.
	MaxDocumentBytes = 64 << 20

	// MaxDepth is the deepest nesting of arrays and objects a dialect accepts
	// unless the dialect documents a smaller limit.
	MaxDepth = 1000

	// AsqavMaxDepth matches the Asqav cloud signer, which refuses documents
	// nested deeper than 200 levels.
	AsqavMaxDepth = 200

	// MaxLineBytes is the longest line read from a JSON Lines stream. A longer
	// line is refused with an error naming it, and reading goes on.
	MaxLineBytes = 16 << 20

	// MaxOpenInputs is the most input files a run holds open at once for
	// their snapshots (cmd/verify, snapshot.go). Past it a file is closed
	// between readings and reopened by its path, checked to be the same
	// file (device and inode) and no shorter: a directory of many thousand
	// logs does not run out of descriptors.
	MaxOpenInputs = 256

	// MaxDSSESignatures is the most signatures a DSSE envelope may carry.
	// Each is verified, and an ML-DSA verification costs about 0.1 ms, so
	// without a bound a one-line envelope could hold a minute's work; real
	// envelopes carry one to a few.
	MaxDSSESignatures = 32

	// MaxJWSSignatures is the most signatures a JWS in the general JSON
	// serialization may carry, each verified, for the same reason.
	MaxJWSSignatures = 32

	// MaxDSSEKeyTrials is the most keys tried, over one envelope, on DSSE
	// signatures that name no keyid: each trial is a verification, and a
	// key directory may hold thousands. Past it a signature is left
	// unchecked (unknown_key).
	MaxDSSEKeyTrials = 64

	// MaxLinesPerFile bounds the lines, blank ones included, read from one
	// JSON Lines file (67,108,864: at a kilobyte a receipt, a 64 GiB file).
	// A file with more is refused at that line with an error naming it,
	// and the run goes on with the next file: a file of nothing but line
	// ends would otherwise keep a run busy for hours.
	MaxLinesPerFile = 1 << 26

	// MaxBlankLinesPerFile bounds the blank lines of one JSON Lines file
	// (1,048,576). A blank line is one byte of content but costs a run
	// as much as a short record, so a gzip of nothing but line ends,
	// which the content bound lets expand a hundred times, would keep a
	// run busy for minutes before MaxLinesPerFile; past this many it is
	// refused, naming the file, and the run goes on with the next.
	MaxBlankLinesPerFile = 1 << 20

	// MaxGzipRatio bounds a gzip file's content to this many times its
	// compressed size, beyond its first GzipSlackBytes. Receipts compress
	// about 2 to 10 times (signatures are random); a gzip of blank lines,
	// a thousand times. A file that expands further is refused as it is
	// read, with an error naming it, and the run goes on with the next.
	MaxGzipRatio = 100

	// GzipSlackBytes is what any gzip file may expand to, whatever its
	// compressed size, so that small files of repeated records are read.
	GzipSlackBytes = 1 << 20

	// MaxBaselineValidDays bounds verify baseline --valid (ten years): a
	// baseline is meant to expire and be looked at again, and a date past
	// year 9999 would make a file that no TOML reader, report included,
	// reads back.
	MaxBaselineValidDays = 3650

	// MaxSCITTReceipts bounds the receipts (unprotected header 394) of one
	// SCITT transparent statement; a statement with more fails its anchors
	// axis (bad_field).
	MaxSCITTReceipts = 16

	// MaxSCITTProofs bounds the inclusion proofs of one SCITT receipt
	// (header 396, key -1); a receipt with more fails (bad_inclusion_proof).
	MaxSCITTProofs = 16
)

// MaxGzipContent is the most a gzip file of compressed bytes may expand
// to: MaxGzipRatio times compressed, and at least GzipSlackBytes.
func MaxGzipContent(compressed int64) int64 {
	if compressed > (1<<62)/MaxGzipRatio {
		return 1 << 62
	}
	return max(GzipSlackBytes, compressed*MaxGzipRatio)
}
