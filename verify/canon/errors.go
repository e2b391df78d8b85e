package canon

import (
	"fmt"

	"github.com/receiptverify/verify/verify/reason"
)

// Reason is a stable code for why a document was rejected: the one type of
// every package's reasons (verify.Reason is the same). Message text is not
// an API; reasons are.
type Reason = reason.Reason

// The reasons a dialect rejects a document.
const (
	ReasonSyntax          = reason.Syntax          // not JSON
	ReasonInvalidUTF8     = reason.InvalidUTF8     // bytes that are not UTF-8
	ReasonLoneSurrogate   = reason.LoneSurrogate   // \ud800 without its pair
	ReasonDuplicateMember = reason.DuplicateMember // one object, one name twice
	ReasonTooDeep         = reason.TooDeep         // nesting over the dialect's limit
	ReasonTooLarge        = reason.TooLarge        // document over limits.MaxDocumentBytes
	ReasonUnsafeInteger   = reason.UnsafeInteger   // integer literal beyond 2^53
	ReasonNonFinite       = reason.NonFinite       // number that overflows a double
	ReasonTrailingData    = reason.TrailingData    // bytes after the document
	ReasonUnsupported     = reason.Unsupported     // a value the dialect cannot express
)

// Error is a rejected document: why, where (byte offset into the input, or
// -1 when the problem was found after parsing) and at which JSON path.
type Error struct {
	Reason Reason
	Offset int
	Path   string
	Detail string
}

func (e *Error) Error() string {
	msg := string(e.Reason)
	if e.Detail != "" {
		msg += ": " + e.Detail
	}
	switch {
	case e.Offset >= 0 && e.Path != "":
		return fmt.Sprintf("%s (offset %d, at %s)", msg, e.Offset, e.Path)
	case e.Offset >= 0:
		return fmt.Sprintf("%s (offset %d)", msg, e.Offset)
	case e.Path != "":
		return fmt.Sprintf("%s (at %s)", msg, e.Path)
	}
	return msg
}

// Is lets errors.Is match on the reason alone: errors.Is(err, &Error{Reason: ReasonTooDeep}).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Reason == e.Reason && t.Offset == 0 && t.Path == "" && t.Detail == ""
}
