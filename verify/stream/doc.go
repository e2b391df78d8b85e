// Package stream verifies whole archives: many files of JSON Lines (or one
// document each), on all cores, with results in input order, and checks
// what no single receipt can show: chains across the whole input (breaks,
// forks, links to receipts absent from the archive) and nonces replayed
// within the run. (The command's audit database judges a load against
// every receipt loaded before in the same way.)
//
// It makes two passes. The first reads the input, verifies each receipt,
// adds its chain hash, link, chain scope and nonce to an index, and writes
// every record with its result to a spool file; the second reads the spool
// back (and, when the caller wants each record's bytes, the input again
// beside it), gives each receipt the judgments of its chain link and nonce
// against the whole input, and writes the result. So every verdict is
// final when written, and every receipt is parsed and verified once.
//
// Memory stays flat however long the input, but for some 80 bytes a chain:
// the index is an external sort that keeps 16 MiB of entries and 16 MiB of
// judgments in memory and writes sorted runs to the temporary directory
// beyond that, beside the spool (about 1.3 KB of disk per receipt in all,
// removed when the run ends), and it keeps the first receipt of each chain
// scope, to tell a chain that starts before the input from a gap in one.
//
// The same receipt delivered twice (the same chain hash: the same signed
// bytes, however re-serialised) is counted in Summary.Duplicates and judged
// as its first delivery, never as a replay of itself or a fork. A link to
// a receipt that the input does not hold FAILs chain_absent when earlier
// receipts of its chain are in the input: a gap. On the first receipt of its
// chain it is a chain that starts before the input, its link not checked
// (SKIPPED, which does not make a receipt INCOMPLETE), counted in
// Summary.ChainsOutside.
//
// Which receipt is first, of those using one nonce (the original, the
// others its replays), naming one predecessor (the one that links, the
// others its forks), sharing a chain hash (the first delivery) or
// belonging to one chain (its first in the input, the only one whose
// missing predecessor is no gap: its genesis when the input holds one),
// is decided by what the receipts carry, never by the order the files are
// read in: the earliest issue time (a receipt without one last), then the
// least SHA-256 of the line.
package stream
