package keys

import (
	"strconv"
	"strings"
	"time"

	"github.com/receiptverify/verify/verify/sigalg"
)

// Format says which kind of key file a snapshot (or a key) came from.
type Format string

// The key file kinds Load detects.
const (
	// FormatAsqavJWKS is Asqav's key directory: {"keys":[{kid, agent_id,
	// issuer_id, org_id, alg, public_key, status, revoked_at}]}, public_key
	// in standard base64.
	FormatAsqavJWKS Format = "asqav-jwks"
	// FormatJWKSet is an RFC 7517 JWK set of OKP/Ed25519 or EC/P-256 keys.
	FormatJWKSet Format = "jwk-set"
	// FormatJWK is a single JWK object, as authproof embeds in its receipts.
	FormatJWK Format = "jwk"
	// FormatHexMap is {key_id: hex public key}, as AERF and pipelock ship.
	FormatHexMap Format = "hex-map"
	// FormatDIDMap is {did: hex public key}, as agentreceipts' did_map.json.
	FormatDIDMap Format = "did-map"
	// FormatDIDKey is a self-certifying did:key identifier; the key is the
	// identifier itself.
	FormatDIDKey Format = "did-key"
)

// Status is a key's lifecycle state as written in the key file.
type Status string

// Known statuses. Any other value is kept as written and is not usable.
const (
	StatusActive      Status = "active"
	StatusRevoked     Status = "revoked"
	StatusSuspended   Status = "suspended"
	StatusCompromised Status = "compromised"
)

// Usable reports whether signatures by a key in this state may be accepted.
// Only active is usable. The Asqav reference fails only revoked, suspended
// and compromised; an unknown status fails here too, because a state we do
// not understand is no evidence that the key is good.
func (s Status) Usable() bool { return s == StatusActive }

// Source locates a key in its key file, for error messages.
type Source struct {
	File   string // the name given to Load
	Index  int    // position in the file's keys array or member order
	Format Format
}

func (s Source) String() string { return s.File + "[" + strconv.Itoa(s.Index) + "]" }

// Key is one verification key with the metadata that key resolution and
// the key_status check need. Fields absent from the file are empty.
type Key struct {
	KID       string
	Alg       sigalg.Alg
	IssuerID  string
	AgentID   string
	OrgID     string
	Status    Status
	RevokedAt time.Time         // zero when the file gives none
	Public    *sigalg.PublicKey // nil when Err is set
	Source    Source
	// Err is set when the entry's ids loaded but its key material did not
	// (a public_key of the wrong size, say). Such a key still resolves, so
	// a receipt naming it is judged against it, but it never verifies.
	Err *Error

	label string // Label, worked out once when the key is loaded
}

// Label names the key in a verdict's notes: its kid and where it was
// loaded from, "kid (file[index])". A key loaded from a file has it
// worked out once, as every receipt it verifies names it.
func (k *Key) Label() string {
	if k.label != "" {
		return k.label
	}
	return k.makeLabel()
}

func (k *Key) makeLabel() string { return k.KID + " (" + k.Source.String() + ")" }

// Verify checks sig over msg with the key. It does not look at Status;
// call CheckStatus for that.
func (k *Key) Verify(msg, sig []byte) error {
	if k.Public == nil {
		return k.Err
	}
	return k.Public.Verify(msg, sig)
}

// CheckStatus fails with ReasonKeyRevoked when the status is not usable, or
// when the key has a revoked_at that is not after at. at is the instant the
// caller judges the key at (an injected clock or the receipt's own time);
// this package reads no clock.
func (k *Key) CheckStatus(at time.Time) error {
	if !k.Status.Usable() {
		return &Error{Reason: ReasonKeyRevoked, File: k.Source.File, Index: k.Source.Index, ID: k.KID,
			Detail: "status " + quote(string(k.Status))}
	}
	if !k.RevokedAt.IsZero() && !at.Before(k.RevokedAt) {
		return &Error{Reason: ReasonKeyRevoked, File: k.Source.File, Index: k.Source.Index, ID: k.KID,
			Detail: "revoked at " + k.RevokedAt.Format(time.RFC3339Nano)}
	}
	return nil
}

// parseStatus maps the file's status to a Status. Absent or empty means
// active, as in the Asqav reference; known values are matched ignoring case.
func parseStatus(s string) Status {
	if s == "" {
		return StatusActive
	}
	l := Status(strings.ToLower(s))
	switch l {
	case StatusActive, StatusRevoked, StatusSuspended, StatusCompromised:
		return l
	}
	return Status(s)
}
