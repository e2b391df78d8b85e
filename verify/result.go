package verify

import (
	"iter"
	"math/bits"
	"slices"

	"github.com/receiptverify/verify/internal/helpers/jsonenc"
)

// ResultVersion is the version of the JSON layout of Result. It changes
// when a field is renamed or removed; new fields may appear without it.
const ResultVersion = 1

// Verdict is the overall outcome for one receipt.
type Verdict string

// The verdicts. INCOMPLETE means the tool could not tell: a check that
// applies could not be made. It is never PASS by default.
const (
	Pass       Verdict = "PASS"
	Fail       Verdict = "FAIL"
	Incomplete Verdict = "INCOMPLETE"
	Unreadable Verdict = "UNREADABLE" // not JSON, or not a receipt of any known shape
)

// Status is the outcome of one axis.
type Status string

// Axis statuses. NotRun is a check the user did not ask for (no --schemas,
// say); it never makes a receipt INCOMPLETE. Skipped is a check that
// applies but could not be made.
const (
	StatusPass    Status = "PASS"
	StatusFail    Status = "FAIL"
	StatusSkipped Status = "SKIPPED"
	StatusNotRun  Status = "NOT_RUN"
)

// AxisName names one independent check.
type AxisName string

// The axes, in the order they are reported.
const (
	AxisStructure       AxisName = "structure"
	AxisIssuerKey       AxisName = "issuer_key"
	AxisIssuerBind      AxisName = "issuer_bind"
	AxisKeyStatus       AxisName = "key_status"
	AxisSignature       AxisName = "signature"
	AxisChain           AxisName = "chain"
	AxisPayloadDigest   AxisName = "payload_digest"
	AxisActionRef       AxisName = "action_ref"
	AxisToolFingerprint AxisName = "tool_fingerprint"
	AxisNonce           AxisName = "nonce"
	AxisExpiry          AxisName = "expiry"
	AxisSkew            AxisName = "skew"
	AxisAnchors         AxisName = "anchors"
)

// axisOrder is every axis in report order: the one table behind
// AxisOrder, Axes' array and its JSON.
var axisOrder = [numAxes]AxisName{
	AxisStructure, AxisIssuerKey, AxisIssuerBind, AxisKeyStatus, AxisSignature,
	AxisChain, AxisPayloadDigest, AxisActionRef, AxisToolFingerprint, AxisNonce,
	AxisExpiry, AxisSkew, AxisAnchors,
}

// AxisOrder returns every axis in report order. The slice is the caller's
// own: sorting or changing it changes nothing else.
func AxisOrder() []AxisName { return slices.Clone(axisOrder[:]) }

// advisory axes are reported but never fold into the verdict.
func advisory(a AxisName) bool { return a == AxisActionRef || a == AxisExpiry }

// Axis is one check's outcome with a stable reason code (empty on PASS and
// NOT_RUN) and a short note for people.
type Axis struct {
	Status Status `json:"status"`
	Reason Reason `json:"reason,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Axes holds the outcome of each axis that has one. It is an array in
// AxisOrder rather than a map: every result has one, and a map per receipt
// (made, filled, looked up by every fold) showed in the stream's profile.
// The zero value has no outcomes.
type Axes struct {
	set  uint16 // bit i: axes[i] holds an outcome
	axes [numAxes]Axis
}

const numAxes = 13

// axisIndex is name's place in AxisOrder, -1 for a name that is no axis.
func axisIndex(name AxisName) int {
	switch name {
	case AxisStructure:
		return 0
	case AxisIssuerKey:
		return 1
	case AxisIssuerBind:
		return 2
	case AxisKeyStatus:
		return 3
	case AxisSignature:
		return 4
	case AxisChain:
		return 5
	case AxisPayloadDigest:
		return 6
	case AxisActionRef:
		return 7
	case AxisToolFingerprint:
		return 8
	case AxisNonce:
		return 9
	case AxisExpiry:
		return 10
	case AxisSkew:
		return 11
	case AxisAnchors:
		return 12
	}
	return -1
}

// Get returns the outcome of axis name and whether it has one.
func (a *Axes) Get(name AxisName) (Axis, bool) {
	i := axisIndex(name)
	if i < 0 || a.set&(1<<i) == 0 {
		return Axis{}, false
	}
	return a.axes[i], true
}

// Of returns the outcome of axis name, the zero Axis when it has none.
func (a *Axes) Of(name AxisName) Axis {
	ax, _ := a.Get(name)
	return ax
}

// Set records the outcome of axis name. It panics on a name that is no
// axis: the names are this package's constants.
func (a *Axes) Set(name AxisName, ax Axis) {
	i := axisIndex(name)
	if i < 0 {
		panic("verify: no axis " + string(name))
	}
	a.set |= 1 << i
	a.axes[i] = ax
}

// Len is the number of axes with an outcome.
func (a *Axes) Len() int { return bits.OnesCount16(a.set) }

// All yields each axis with an outcome, in AxisOrder.
func (a *Axes) All() iter.Seq2[AxisName, Axis] {
	return func(yield func(AxisName, Axis) bool) {
		for i, name := range axisOrder {
			if a.set&(1<<i) != 0 && !yield(name, a.axes[i]) {
				return
			}
		}
	}
}

// MarshalJSON writes the axes in AxisOrder, so output is stable and reads
// in the order of the checks. Each axis is written as json.Marshal writes
// an Axis, escapes included (jsonenc, HTML escaping on), without reflection.
func (a Axes) MarshalJSON() ([]byte, error) {
	return a.appendJSON(make([]byte, 0, 96*a.Len()+2))
}

func (a *Axes) appendJSON(b []byte) ([]byte, error) {
	b = append(b, '{')
	first := true
	for name, ax := range a.All() {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonenc.AppendString(b, string(name), true)
		b = append(b, `:{"status":`...)
		b = jsonenc.AppendString(b, string(ax.Status), true)
		if ax.Reason != "" {
			b = append(b, `,"reason":`...)
			b = jsonenc.AppendString(b, string(ax.Reason), true)
		}
		if ax.Note != "" {
			b = append(b, `,"note":`...)
			b = jsonenc.AppendString(b, ax.Note, true)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	return b, nil
}

// Fingerprints are the values this tool recomputed, for the report and for
// loading into analytics.
type Fingerprints struct {
	ActionRef       string         `json:"action_ref,omitempty"`
	PayloadDigest   *PayloadDigest `json:"payload_digest,omitempty"`
	ToolFingerprint string         `json:"tool_fingerprint,omitempty"` // recomputed from the expected schema that matched
	ChainHash       string         `json:"chain_hash,omitempty"`       // what a successor names as its predecessor
	Overturn        string         `json:"overturn,omitempty"`
	CallSignature   string         `json:"call_signature,omitempty"`
	UndoLogProfile  string         `json:"undolog_profile,omitempty"`
	// RecorderEntry is the hash of the pipelock flight recorder entry the
	// receipt (or recorder checkpoint) was read from, as the recorder
	// computes it: what a recorder checkpoint names as its head.
	RecorderEntry string `json:"recorder_entry,omitempty"`
}

// PayloadDigest is {hash, size} of the canonical context.
type PayloadDigest struct {
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// Fields are the normalized receipt fields that reports and analytics use.
// Empty when the receipt does not carry them.
type Fields struct {
	ActionID        string   `json:"action_id,omitempty"`
	AgentID         string   `json:"agent_id,omitempty"`
	IssuerID        string   `json:"issuer_id,omitempty"`
	OrgID           string   `json:"org_id,omitempty"`
	SessionID       string   `json:"session_id,omitempty"`
	Step            *int64   `json:"step,omitempty"`
	ActionType      string   `json:"action_type,omitempty"`
	ToolName        string   `json:"tool_name,omitempty"`
	ToolFingerprint string   `json:"tool_fingerprint,omitempty"` // as carried by the receipt
	ToolServers     []string `json:"tool_servers,omitempty"`     // expected-schema servers whose fingerprint matches
	Nonce           string   `json:"nonce,omitempty"`
	IssuedAt        string   `json:"issued_at,omitempty"`
	ExpiresAt       string   `json:"expires_at,omitempty"`
	Decision        string   `json:"decision,omitempty"`
	// Signature is the encoded signature as carried, for replay detection
	// in analytics; the JSON output carries its SHA-256 instead, since an
	// ML-DSA signature is several kilobytes.
	Signature       string `json:"-"`
	SignatureSHA256 string `json:"signature_sha256,omitempty"` // hex SHA-256 of Signature's text
	PreviousHash    string `json:"previous_hash,omitempty"`
	KeyID           string `json:"key_id,omitempty"`
	Alg             string `json:"alg,omitempty"`
	KeySelfAsserted bool   `json:"key_self_asserted,omitempty"` // key embedded in the receipt by the format's design
	// Lifecycle is the session lifecycle record the receipt is, with its
	// signed claims, which the completeness verdict rests on; nil for an
	// ordinary action.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
}

// Lifecycle is a signed session lifecycle record: pipelock's
// session_open, heartbeat and session_close; an agent receipt that ends
// its chain (chain.terminal), a close or, when its chain.status says so,
// an interruption; a checkpoint naming a chain's head.
type Lifecycle struct {
	Kind string `json:"kind"` // LifecycleOpen, LifecycleHeartbeat or LifecycleClose
	// HeartbeatSeconds is the interval a session_open declares.
	HeartbeatSeconds int64 `json:"heartbeat_seconds,omitempty"`
	// FinalSeq and ReceiptCount are a session_close's claims: the last
	// sequence number of its chain and the receipts of its key segment.
	FinalSeq     int64 `json:"final_seq,omitempty"`
	ReceiptCount int64 `json:"receipt_count,omitempty"`
	// Head is the chain hash of the receipt a checkpoint names as its
	// chain's head (FinalSeq is its sequence number); of a transparency
	// log's checkpoint, its root in hex (FinalSeq is its size).
	Head string `json:"head,omitempty"`
	// ConsistencySize and ConsistencyRoot are the tree head a log
	// checkpoint's consistency proof leads from: its size, and its root
	// in hex when the proof verified ("" when it did not). Zero without
	// a proof, or when the note did not verify.
	ConsistencySize int64  `json:"consistency_size,omitempty"`
	ConsistencyRoot string `json:"consistency_root,omitempty"`
}

// The kinds of Lifecycle record.
const (
	LifecycleOpen       = "session_open"
	LifecycleHeartbeat  = "heartbeat"
	LifecycleClose      = "session_close"
	LifecycleCheckpoint = "checkpoint"
	// LifecycleLogCheckpoint is a transparency log's checkpoint: its
	// size and root, not a receipt chain's head.
	LifecycleLogCheckpoint = "log_checkpoint"
	// LifecycleInterrupted is a terminal receipt whose issuer declares
	// its chain ended by an interruption (agent-receipts chain.status).
	LifecycleInterrupted = "session_interrupted"
)

// texts are the string fields of f, in the order of its binary form, for
// the code that handles each of them alike (appendBinary, unmarshalBinary,
// detach).
func (f *Fields) texts() [17]*string {
	return [17]*string{&f.ActionID, &f.AgentID, &f.IssuerID, &f.OrgID, &f.SessionID, &f.ActionType,
		&f.ToolName, &f.ToolFingerprint, &f.Nonce, &f.IssuedAt, &f.ExpiresAt, &f.Decision, &f.Signature,
		&f.SignatureSHA256, &f.PreviousHash, &f.KeyID, &f.Alg}
}

// texts are the string fields of fp, as Fields.texts.
func (fp *Fingerprints) texts() [7]*string {
	return [7]*string{&fp.ActionRef, &fp.ToolFingerprint, &fp.ChainHash, &fp.Overturn, &fp.CallSignature, &fp.UndoLogProfile, &fp.RecorderEntry}
}

// Result is the verification of one receipt. Its JSON form is the output
// contract of `verify receipts -f jsonl` (schemas/result.schema.json).
type Result struct {
	Version      int          `json:"version"`
	Source       string       `json:"source,omitempty"`
	Line         int          `json:"line,omitempty"`
	Format       string       `json:"format"`
	Verdict      Verdict      `json:"verdict"`
	Reasons      []Reason     `json:"reasons"`
	Error        string       `json:"error,omitempty"` // why an UNREADABLE input could not be read
	Axes         Axes         `json:"axes"`
	Fields       Fields       `json:"fields"`
	Fingerprints Fingerprints `json:"fingerprints"`

	// Signed is a copy of the exact bytes the signature was checked over
	// (the signing input), kept only when a caller asks
	// (VerifyOptions.KeepSigned); never output.
	Signed []byte `json:"-"`

	link       resultLink
	strictTool bool // tool findings fold into the verdict (--strict-schemas)
}

// resultLink is what a receipt says about its predecessor and its chain.
// Prev is normalized: lowercase hex, no "sha256:" prefix.
type resultLink struct {
	Present bool // the format chains and the receipt carries a link (or an explicit genesis)
	Genesis bool
	Prev    string
	Scope   string // format and chain scope: receipts of one chain share it
}

// Judge records the outcome of a check made across receipts (a stream's
// judgments of chains and nonces) and folds the verdict again. A later
// FAIL overrides an earlier outcome; nothing overrides a FAIL.
func (r *Result) Judge(name AxisName, ax Axis) {
	r.set(name, ax.Status, ax.Reason, ax.Note)
	r.fold()
}

// set records an axis outcome; a later FAIL overrides an earlier outcome,
// nothing overrides a FAIL.
func (r *Result) set(name AxisName, st Status, reason Reason, note string) {
	if old, ok := r.Axes.Get(name); ok && old.Status == StatusFail && st != StatusFail {
		return
	}
	r.Axes.Set(name, Axis{Status: st, Reason: reason, Note: note})
}

// Counts reports whether the outcome of the axis name counts toward the
// verdict: every axis but the advisory ones (action_ref, expiry) and,
// unless the verification was strict about schemas, the tool
// fingerprint.
func (r *Result) Counts(name AxisName) bool {
	return !advisory(name) && (name != AxisToolFingerprint || r.strictTool)
}

// fold computes the verdict and the reason list from the axes: FAIL if any
// axis but the advisory ones failed, else INCOMPLETE if any axis but chain
// and the advisory ones was skipped, else PASS.
func (r *Result) fold() {
	if r.Verdict == Unreadable {
		return
	}
	r.Reasons = r.Reasons[:0]
	failed, skipped := false, false
	for name, ax := range r.Axes.All() {
		if !r.Counts(name) {
			continue
		}
		switch ax.Status {
		case StatusFail:
			failed = true
			r.Reasons = append(r.Reasons, ax.Reason)
		case StatusSkipped:
			if name != AxisChain {
				skipped = true
			}
		}
	}
	switch {
	case failed:
		r.Verdict = Fail
	case skipped:
		r.Verdict = Incomplete
		for name, ax := range r.Axes.All() {
			if ax.Status == StatusSkipped && name != AxisChain {
				r.Reasons = append(r.Reasons, ax.Reason)
			}
		}
	default:
		r.Verdict = Pass
	}
	if r.Reasons == nil {
		r.Reasons = []Reason{}
	}
}
