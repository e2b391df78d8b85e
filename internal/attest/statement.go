package attest

import (
	"cmp"
	"slices"
)

// The in-toto identifiers of what this package writes.
const (
	PayloadType   = "application/vnd.in-toto+json"
	StatementType = "https://in-toto.io/Statement/v1"
	PredicateType = "https://in-toto.io/attestation/test-result/v0.1"
)

// Results of a test-result predicate.
const (
	Passed = "PASSED" // no finding row at all
	Warned = "WARNED" // finding rows, none at --fail-on or above
	Failed = "FAILED" // some finding row at --fail-on or above
)

// Statement is an in-toto Statement v1.
type Statement struct {
	Type          string       `json:"_type"`
	Subject       []Descriptor `json:"subject"`
	PredicateType string       `json:"predicateType"`
	Predicate     Predicate    `json:"predicate"`
}

// Descriptor is an in-toto ResourceDescriptor reduced to what is used: a
// file by name and SHA-256 (lowercase hex).
type Descriptor struct {
	Name   string            `json:"name"`
	Digest map[string]string `json:"digest"`
}

// File describes a file by name and SHA-256.
func File(name, sha256 string) Descriptor {
	return Descriptor{Name: name, Digest: map[string]string{"sha256": sha256}}
}

// SHA256 is the descriptor's SHA-256 digest, empty if it has none.
func (d Descriptor) SHA256() string { return d.Digest["sha256"] }

// Predicate is the test-result predicate, each test a finding type of a
// day ("2026-11-01/failures"), with the audit's own summary added:
// in-toto's parsing rules have consumers ignore fields they do not know.
type Predicate struct {
	Result        string       `json:"result"`
	Configuration []Descriptor `json:"configuration"`
	PassedTests   []string     `json:"passedTests"`
	WarnedTests   []string     `json:"warnedTests"`
	FailedTests   []string     `json:"failedTests"`
	Summary       Summary      `json:"summary"`
}

// Summary is what the audit concluded and how it judged.
type Summary struct {
	Tool        string         `json:"tool"`
	ToolVersion string         `json:"tool_version"`
	At          string         `json:"at"` // the instant verdicts and baseline expiry were judged at (--at, or the clock)
	FailOn      string         `json:"fail_on"`
	Verdict     string         `json:"verdict"` // Result again, for readers of the summary alone
	Days        []string       `json:"days"`
	Receipts    Receipts       `json:"receipts"`
	Findings    map[string]int `json:"findings"`   // rows by finding type, suppressed included
	Severities  map[string]int `json:"severities"` // rows not suppressed, by severity
	Suppressed  int            `json:"suppressed"`
	Failing     int            `json:"failing"` // rows at fail_on or above, not suppressed
}

// Receipts are the receipts of the days reported, by verdict.
type Receipts struct {
	Receipts   int64 `json:"receipts"`
	Pass       int64 `json:"pass"`
	Fail       int64 `json:"fail"`
	Incomplete int64 `json:"incomplete"`
}

// NewStatement is the statement over subjects, sorted by name and with
// duplicates dropped, and the configuration likewise.
func NewStatement(subjects, configuration []Descriptor, p Predicate) *Statement {
	p.Configuration = normalize(configuration)
	for _, l := range []*[]string{&p.PassedTests, &p.WarnedTests, &p.FailedTests} {
		if *l == nil {
			*l = []string{}
		}
	}
	return &Statement{Type: StatementType, Subject: normalize(subjects), PredicateType: PredicateType, Predicate: p}
}

// normalize sorts descriptors by name, then digest, and drops exact
// duplicates. A name with two digests stays twice: the run read two
// versions of the file, and at most one can still be there.
func normalize(ds []Descriptor) []Descriptor {
	out := slices.Clone(ds)
	slices.SortFunc(out, func(a, b Descriptor) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.SHA256(), b.SHA256()))
	})
	out = slices.CompactFunc(out, func(a, b Descriptor) bool { return a.Name == b.Name && a.SHA256() == b.SHA256() })
	if out == nil {
		out = []Descriptor{}
	}
	return out
}
