package canon

import (
	"fmt"
)

// Reason is a stable code for why a document was rejected. Message text is
// not an API; reasons are.
type Reason string

// The reasons a dialect rejects a document.
const (
	ReasonSyntax          Reason = "syntax"           // not JSON
	ReasonInvalidUTF8     Reason = "invalid_utf8"     // bytes that are not UTF-8
	ReasonLoneSurrogate   Reason = "lone_surrogate"   // \ud800 without its pair
	ReasonDuplicateMember Reason = "duplicate_member" // one object, one name twice
	ReasonTooDeep         Reason = "too_deep"         // nesting over the dialect's limit
	ReasonTooLarge        Reason = "too_large"        // document over limits.MaxDocumentBytes
	ReasonUnsafeInteger   Reason = "unsafe_integer"   // integer literal beyond 2^53
	ReasonNonFinite       Reason = "non_finite"       // number that overflows a double
	ReasonTrailingData    Reason = "trailing_data"    // bytes after the document
	ReasonUnsupported     Reason = "unsupported"      // a value the dialect cannot express
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
