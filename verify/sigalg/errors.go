package sigalg

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/receiptverify/verify/verify/reason"
)

// Reason is a stable, machine-readable cause: the one type of every
// package's reasons (verify.Reason is the same). The set is closed.
type Reason = reason.Reason

// The reasons this package reports.
const (
	ReasonUnsupportedAlg     = reason.UnsupportedAlg
	ReasonMalformedKey       = reason.MalformedKey
	ReasonMalformedSignature = reason.MalformedSignature
	ReasonBadSignature       = reason.BadSignature
	ReasonMalformedEncoding  = reason.MalformedEncoding
)

// Error is the only error type returned by this package.
type Error struct {
	Reason Reason
	Alg    Alg    // empty when not known
	Detail string // human-readable, not an API
	Err    error  // optional cause, e.g. a *SizeError
}

// Sentinels for errors.Is: an *Error matches a sentinel with the same Reason.
var (
	ErrUnsupportedAlg     = &Error{Reason: ReasonUnsupportedAlg}
	ErrMalformedKey       = &Error{Reason: ReasonMalformedKey}
	ErrMalformedSignature = &Error{Reason: ReasonMalformedSignature}
	ErrBadSignature       = &Error{Reason: ReasonBadSignature}
	ErrMalformedEncoding  = &Error{Reason: ReasonMalformedEncoding}
)

func (e *Error) Error() string {
	msg := "sigalg: " + string(e.Reason)
	if e.Alg != "" {
		msg += " (" + string(e.Alg) + ")"
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

// Is reports whether target is an *Error with the same Reason, so that
// errors.Is(err, ErrBadSignature) works whatever the details.
func (e *Error) Is(target error) bool {
	var t *Error
	if !errors.As(target, &t) {
		return false
	}
	return t.Reason == e.Reason
}

// SizeError says that a key or signature had the wrong length for its
// algorithm. It is wrapped inside an *Error.
type SizeError struct {
	What string // "public key" or "signature"
	Alg  Alg
	Got  int
	Want int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s %s is %d bytes, want %d", e.Alg, e.What, e.Got, e.Want)
}

// quote bounds hostile input echoed into an error message.
func quote(s string) string {
	const max = 64
	if len(s) > max {
		return fmt.Sprintf("%q...", s[:max])
	}
	return fmt.Sprintf("%q", s)
}

func itoa(n int) string { return strconv.Itoa(n) }
