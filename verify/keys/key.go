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
	// FormatSSLib is a securesystemslib key, {keytype, scheme, keyval:
	// {public}, keyid}, alone, in a keys list, or in {"keys": {keyid: key}}
	// as TUF and in-toto layouts hold them.
	FormatSSLib Format = "securesystemslib"
	// FormatPEM is PEM text: SubjectPublicKeyInfo blocks (or private keys,
	// of which only the public half is read), as go-securesystemslib loads.
	FormatPEM Format = "pem"
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

// Usable reports whether signatures by a key in this state may be accepted
// whenever they were made. Only active is; see Key.CheckStatus for the rule
// that weighs revoked_at.
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

// CheckStatus judges whether a signature by the key may be accepted, given
// issued, the instant the receipt says it was signed (zero when it says
// none), and now, the instant the caller judges at, which stands in for a
// missing issued. This package reads no clock. The rule is the Asqav
// reference's check_key_status:
//
//   - active: usable, unless the key has a revoked_at that is not after
//     the instant (ReasonKeyRevoked; the reference ignores revoked_at on
//     an active key, this package does not);
//   - revoked, suspended or compromised, with a revoked_at after issued:
//     ReasonRevokedAfterIssue. The receipt predates the revocation only by
//     its own word, which a holder of the key can backdate, so the check
//     cannot be made either way; the reference says SKIPPED;
//   - revoked, suspended or compromised otherwise (no revoked_at, no issue
//     time to place, or revoked at or before issue): ReasonKeyRevoked;
//   - any other status: ReasonKeyRevoked, where the reference accepts the
//     key: a state we do not understand is no evidence that it is good.
func (k *Key) CheckStatus(issued, now time.Time) error {
	revoked := func(r Reason, detail string) error {
		return &Error{Reason: r, File: k.Source.File, Index: k.Source.Index, ID: k.KID, Detail: detail}
	}
	at := issued
	if at.IsZero() {
		at = now
	}
	switch k.Status {
	case StatusActive:
		if !k.RevokedAt.IsZero() && !at.Before(k.RevokedAt) {
			return revoked(ReasonKeyRevoked, "revoked at "+k.RevokedAt.Format(time.RFC3339Nano))
		}
		return nil
	case StatusRevoked, StatusSuspended, StatusCompromised:
		detail := "status " + quote(string(k.Status))
		switch {
		case k.RevokedAt.IsZero():
			return revoked(ReasonKeyRevoked, detail+" with no revoked_at to place the receipt before")
		case issued.IsZero():
			return revoked(ReasonKeyRevoked, detail+" since "+k.RevokedAt.Format(time.RFC3339Nano)+"; the receipt names no issue time to place before it")
		case !issued.Before(k.RevokedAt):
			return revoked(ReasonKeyRevoked, detail+" since "+k.RevokedAt.Format(time.RFC3339Nano)+", at or before the receipt's issue time "+issued.Format(time.RFC3339Nano))
		}
		return revoked(ReasonRevokedAfterIssue, detail+" since "+k.RevokedAt.Format(time.RFC3339Nano)+", after the receipt's issue time "+
			issued.Format(time.RFC3339Nano)+", which is the signer's own claim")
	}
	return revoked(ReasonKeyRevoked, "status "+quote(string(k.Status)))
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
