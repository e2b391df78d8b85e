package verify

import "github.com/receiptverify/verify/internal/engine/result"

// The Result and its parts are defined in an internal package, with its
// codecs, so that package stream imports them as it imports this one; the
// names here are the same types.

// ResultVersion is the version of the JSON layout of Result. It changes
// when a field is renamed or removed; new fields may appear without it.
const ResultVersion = result.ResultVersion

// Verdict is the overall outcome for one receipt.
type Verdict = result.Verdict

// The verdicts. INCOMPLETE means the tool could not tell: a check that
// applies could not be made. It is never PASS by default.
const (
	Pass       = result.Pass
	Fail       = result.Fail
	Incomplete = result.Incomplete
	Unreadable = result.Unreadable // not JSON, or not a receipt of any known shape
)

// Status is the outcome of one axis.
type Status = result.Status

// Axis statuses. NotRun is a check the user did not ask for (no --schemas,
// say); it never makes a receipt INCOMPLETE. Skipped is a check that
// applies but could not be made.
const (
	StatusPass    = result.StatusPass
	StatusFail    = result.StatusFail
	StatusSkipped = result.StatusSkipped
	StatusNotRun  = result.StatusNotRun
)

// AxisName names one independent check.
type AxisName = result.AxisName

// The axes, in the order they are reported.
const (
	AxisStructure       = result.AxisStructure
	AxisIssuerKey       = result.AxisIssuerKey
	AxisIssuerBind      = result.AxisIssuerBind
	AxisKeyStatus       = result.AxisKeyStatus
	AxisSignature       = result.AxisSignature
	AxisChain           = result.AxisChain
	AxisPayloadDigest   = result.AxisPayloadDigest
	AxisActionRef       = result.AxisActionRef
	AxisToolFingerprint = result.AxisToolFingerprint
	AxisNonce           = result.AxisNonce
	AxisExpiry          = result.AxisExpiry
	AxisSkew            = result.AxisSkew
	AxisAnchors         = result.AxisAnchors
)

// AxisOrder returns every axis in report order. The slice is the caller's
// own: sorting or changing it changes nothing else.
func AxisOrder() []AxisName { return result.AxisOrder() }

// Axis is one check's outcome with a stable reason code (empty on PASS and
// NOT_RUN) and a short note for people.
type Axis = result.Axis

// Axes holds the outcome of each axis that has one, in AxisOrder: Get,
// Of, Set, Len, All. The zero value has no outcomes.
type Axes = result.Axes

// Fingerprints are the values this tool recomputed, for the report and for
// loading into analytics.
type Fingerprints = result.Fingerprints

// PayloadDigest is {hash, size} of the canonical context.
type PayloadDigest = result.PayloadDigest

// Fields are the normalized receipt fields that reports and analytics use.
// Empty when the receipt does not carry them.
type Fields = result.Fields

// Result is the verification of one receipt. Its JSON form is the output
// contract of `verify receipts --output json` (schemas/result.schema.json),
// which AppendJSON writes without reflection. ChainLink, ScopeKey,
// NonceKey and IssuedTime read the receipt's place in its chain and time.
type Result = result.Result
