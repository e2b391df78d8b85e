package analytics

import "fmt"

// RawPolicy says which receipts a load stores the line of (receipts.raw).
// Every row records where its line is in the archive file (byte_offset,
// byte_length, line_sha256), so the archive stays the evidence and the
// database holds the text only where an auditor needs it at hand.
type RawPolicy uint8

const (
	// RawFlagged, the default, stores the line of every receipt that is
	// not PASS, and of every receipt that shares an action_id, (issuer,
	// nonce), signature or call signature with another receipt (the
	// originals and repeats the replays finding lists), so that each row
	// a report flags can be shown from the database alone. An input that
	// is not a file on disk (stdin, a pipe) has all its lines stored.
	RawFlagged RawPolicy = iota
	// RawAll stores every line: a database that needs no archive.
	RawAll
)

// RawPolicies are the names ParseRawPolicy takes, the default first.
var RawPolicies = []string{"flagged", "all"}

func (p RawPolicy) String() string {
	if int(p) < len(RawPolicies) {
		return RawPolicies[p]
	}
	return fmt.Sprintf("RawPolicy(%d)", uint8(p))
}

// ParseRawPolicy reads a policy by name ("flagged" or "all").
func ParseRawPolicy(s string) (RawPolicy, error) {
	for i, name := range RawPolicies {
		if s == name {
			return RawPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown raw policy %q (want flagged or all)", s)
}
