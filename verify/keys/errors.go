package keys

import (
	"errors"
	"fmt"

	"github.com/receiptverify/verify/verify/reason"
)

// Reason is a stable, machine-readable cause: the one type of every
// package's reasons (verify.Reason is the same). The set is closed.
type Reason = reason.Reason

// The reasons this package reports.
const (
	ReasonUnknownKey     = reason.UnknownKey       // no key matches the ids on the wire
	ReasonMalformedKey   = reason.MalformedKey     // an entry or key value cannot be used
	ReasonMalformedFile  = reason.MalformedKeyFile // the file as a whole cannot be read
	ReasonUnsupportedAlg = reason.UnsupportedAlg   // the key's algorithm is not supported
	ReasonLimit          = reason.Limit            // a limit in limits.go was hit
	ReasonNoKeys         = reason.NoKeys           // a file yielded no usable key
	ReasonKeyRevoked     = reason.KeyRevoked       // status is not active, or revoked_at has passed
	ReasonConflict       = reason.KeyConflict      // entries give one key id different keys or ids
	// ReasonRevokedAfterIssue: the key was revoked after the issue time the
	// receipt claims, which cannot be checked (see Key.CheckStatus).
	ReasonRevokedAfterIssue = reason.RevokedAfterIssue
)

// Error is the only error type returned by this package. Entries skipped
// while loading are reported as *Error values too, in Snapshot.Skipped.
type Error struct {
	Reason Reason
	File   string // key file name given to Load; empty when not applicable
	Index  int    // entry position in the file, or -1
	ID     string // kid, key_id or DID concerned, if any
	Detail string // human-readable, not an API
	Err    error  // cause, e.g. a *sigalg.Error
}

// Sentinels for errors.Is: an *Error matches a sentinel with the same Reason.
var (
	ErrUnknownKey     = &Error{Reason: ReasonUnknownKey}
	ErrMalformedKey   = &Error{Reason: ReasonMalformedKey}
	ErrMalformedFile  = &Error{Reason: ReasonMalformedFile}
	ErrUnsupportedAlg = &Error{Reason: ReasonUnsupportedAlg}
	ErrLimit          = &Error{Reason: ReasonLimit}
	ErrNoKeys         = &Error{Reason: ReasonNoKeys}
	ErrKeyRevoked     = &Error{Reason: ReasonKeyRevoked}
	ErrConflict       = &Error{Reason: ReasonConflict}
	// ErrRevokedAfterIssue matches ReasonRevokedAfterIssue.
	ErrRevokedAfterIssue = &Error{Reason: ReasonRevokedAfterIssue}
)

func (e *Error) Error() string {
	msg := "keys: " + string(e.Reason)
	if e.File != "" {
		msg += ": " + e.File
		if e.Index >= 0 {
			msg += fmt.Sprintf("[%d]", e.Index)
		}
	}
	if e.ID != "" {
		msg += fmt.Sprintf(": %s", quote(e.ID))
	}
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error with the same Reason.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Reason == e.Reason
}

// quote bounds hostile input echoed into an error message.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}
