// Package rawpolicy says which receipts a load stores the line of.
package rawpolicy

import "fmt"

// Policy says which receipts a load stores the line of (receipts.raw).
// Every row records where its line is in the archive file (byte_offset,
// byte_length, line_sha256), so the archive stays the evidence and the
// database holds the text only where an auditor needs it at hand.
type Policy uint8

const (
	// Flagged, the default, stores the line of every receipt that is
	// not PASS, and of every receipt that shares an action_id, (issuer,
	// nonce), signature or call signature with another receipt (the
	// originals and repeats the replays finding lists), so that each row
	// a report flags can be shown from the database alone. An input that
	// is not a file on disk (stdin, a pipe) has all its lines stored.
	Flagged Policy = iota
	// All stores every line: a database that needs no archive.
	All
)

// names are the names Parse takes, the default first.
var names = []string{"flagged", "all"}

func (p Policy) String() string {
	if int(p) < len(names) {
		return names[p]
	}
	return fmt.Sprintf("RawPolicy(%d)", uint8(p))
}

// Parse reads a policy by name ("flagged" or "all").
func Parse(s string) (Policy, error) {
	for i, name := range names {
		if s == name {
			return Policy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown raw policy %q (want flagged or all)", s)
}
