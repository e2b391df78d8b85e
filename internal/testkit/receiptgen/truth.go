package receiptgen

import "slices"

// Kind names a planted anomaly.
type Kind string

// The single-receipt kinds, in the order counts are handed out, and the
// corpus-level name collision.
const (
	KindTamperedPayload   Kind = "tampered_payload"
	KindTamperedSignature Kind = "tampered_signature"
	KindRevokedKey        Kind = "revoked_key"
	KindChainBreak        Kind = "chain_break"
	KindFork              Kind = "fork"
	KindAbsent            Kind = "absent"
	KindReplayedNonce     Kind = "replayed_nonce"
	KindSchemaDrift       Kind = "schema_drift"
	KindNameCollision     Kind = "name_collision"
	// KindTruncated is a completeness plant that a checkpoint covers: the
	// chain's completeness verdict must be truncated.
	KindTruncated Kind = "truncated"
	// KindNoEvidence is a completeness plant that no signed evidence
	// contradicts: its chain must not be reported truncated.
	KindNoEvidence Kind = "no_evidence"
)

// kinds lists the single-receipt kinds (Kinds).
var kinds = []Kind{KindTamperedPayload, KindTamperedSignature, KindRevokedKey, KindChainBreak,
	KindFork, KindAbsent, KindReplayedNonce, KindSchemaDrift}

// Expected verdict of each kind: the reason the verifier must report and
// the axis it reports it on. The strings are verify's Reason and AxisName
// values (this package does not import verify, so verify's own tests can
// use it).
var expected = map[Kind]struct{ reason, axis string }{
	KindTamperedPayload:   {"bad_signature", "signature"},
	KindTamperedSignature: {"bad_signature", "signature"},
	KindRevokedKey:        {"key_revoked", "key_status"},
	KindChainBreak:        {"chain_break", "chain"},
	KindFork:              {"chain_fork", "chain"},
	KindAbsent:            {"chain_absent", "chain"},
	KindReplayedNonce:     {"nonce_replay", "nonce"},
	KindSchemaDrift:       {"tool_drift", "tool_fingerprint"},
	KindNameCollision:     {"collision", ""},
	KindTruncated:         {"truncated", ""},
	KindNoEvidence:        {"", ""},
}

// Expected returns the reason and axis a verifier reports for kind
// (name_collision: reason "collision", no axis).
func Expected(kind Kind) (reason, axis string) {
	e := expected[kind]
	return e.reason, e.axis
}

// Record is one line of truth.jsonl.
//
// A single-receipt anomaly names its receipt by 1-based line in
// receipts.jsonl and by action_id, with the reason and axis a stream
// verification must report there and the UTC day of its issued_at. A
// name_collision has line 0 and names instead a tool name and a day on
// which receipts carried more than one server's fingerprint for it
// (fingerprints sorted, servers[i] exposing fingerprints[i]).
type Record struct {
	Line         int      `json:"line"`
	ActionID     string   `json:"action_id,omitempty"`
	Kind         Kind     `json:"kind"`
	Reason       string   `json:"reason"`
	Axis         string   `json:"axis,omitempty"`
	Day          string   `json:"day"`
	ToolName     string   `json:"tool_name,omitempty"`
	Fingerprints []string `json:"fingerprints,omitempty"`
	Servers      []string `json:"servers,omitempty"`
	Note         string   `json:"note,omitempty"`
	// A completeness plant (truncated, no_evidence; line 0) names what was
	// done to a chain and the chain: its agent and session, and its chain
	// scope as an archive keeps it (the query's chain_scope).
	Plant      string `json:"plant,omitempty"`
	AgentID    string `json:"agent_id,omitempty"`
	SessionID  string `json:"session_id,omitempty"`
	ChainScope string `json:"chain_scope,omitempty"`
}

// Truth is what Generate planted.
type Truth struct {
	Lines   int      // lines written to receipts.jsonl (Config.N)
	Removed int      // receipts generated and signed but left out (the absent kind)
	Cut     int      // receipts of the completeness plants signed but left out
	Records []Record // truth.jsonl: anomalies by line, then collisions by day and tool name
	Counts  map[Kind]int
	Files   []string // names written to the sink, in order
}

// Anomalies returns the single-receipt records, by line.
func (t *Truth) Anomalies() []Record {
	var out []Record
	for _, r := range t.Records {
		if r.Line > 0 {
			out = append(out, r)
		}
	}
	return out
}

// ByLine maps each anomalous line to its record.
func (t *Truth) ByLine() map[int]Record {
	out := map[int]Record{}
	for _, r := range t.Records {
		if r.Line > 0 {
			out[r.Line] = r
		}
	}
	return out
}

// Kinds lists the single-receipt kinds, a copy.
func Kinds() []Kind { return slices.Clone(kinds) }
