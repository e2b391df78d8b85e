package analytics

import "fmt"

// rawPolicy says which receipts a load stores the line of (receipts.raw).
// Every row records where its line is in the archive file (byte_offset,
// byte_length, line_sha256), so the archive stays the evidence and the
// database holds the text only where an auditor needs it at hand.
type rawPolicy uint8

const (
	// rawFlagged, the default, stores the line of every receipt that is
	// not PASS, and of every receipt that shares an action_id, (issuer,
	// nonce), signature or call signature with another receipt (the
	// originals and repeats the replays finding lists), so that each row
	// a report flags can be shown from the database alone. An input that
	// is not a file on disk (stdin, a pipe) has all its lines stored.
	rawFlagged rawPolicy = iota
	// rawAll stores every line: a database that needs no archive.
	rawAll
)

// rawPolicies are the names ParseRawPolicy takes, the default first.
var rawPolicies = []string{"flagged", "all"}

func (p rawPolicy) String() string {
	if int(p) < len(rawPolicies) {
		return rawPolicies[p]
	}
	return fmt.Sprintf("RawPolicy(%d)", uint8(p))
}

// ParseRawPolicy reads a policy by name ("flagged" or "all").
func ParseRawPolicy(s string) (rawPolicy, error) {
	for i, name := range rawPolicies {
		if s == name {
			return rawPolicy(i), nil
		}
	}
	return 0, fmt.Errorf("unknown raw policy %q (want flagged or all)", s)
}
