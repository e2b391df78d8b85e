package fingerprint

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zeebo/blake3"

	"github.com/receiptverify/verify/verify/canon"
)

// UndoLogSignatureLen is the length of an UndoLog call_signature: BLAKE3-256
// as lowercase hex.
const UndoLogSignatureLen = 64

// UndoLogSignature returns the UndoLog call_signature of one tool call:
// lowercase hex BLAKE3-256 over
//
//	16 raw UUID bytes of sessionID (no length prefix)
//	u32le stepIndex
//	u32le len(toolName) | toolName (UTF-8)
//	u32le len(args)     | canonical args under d
//
// sessionID must be a UUID in one of the forms both reference parsers
// (Python's uuid.UUID, Rust's uuid::Uuid::parse_str) accept, hex digits in
// either case:
//
//	550e8400-e29b-41d4-a716-446655440000           canonical 8-4-4-4-12
//	550e8400e29b41d4a716446655440000               32 digits, no hyphens
//	{550e8400-e29b-41d4-a716-446655440000}         braced
//	urn:uuid:550e8400-e29b-41d4-a716-446655440000  URN
//
// Python's uuid.UUID is looser still: it deletes every "urn:", "uuid:" and
// hyphen anywhere in the text, strips any number of braces from both ends,
// and hands the remaining 32 characters to int(..., 16), which also takes
// a sign, "0x", underscores and surrounding white space ("+" followed by
// 31 digits is a valid UUID to it). Those forms are refused here: no
// producer writes them, and the Rust engine, which stores the rows, would
// refuse them too. Every accepted form yields the same 16 bytes, and only
// the bytes are hashed. A bad UUID is a *FieldError for "session_id".
//
// args nil is an error; a JSON null is a value like any other (it
// canonicalizes to null).
func UndoLogSignature(d canon.Dialect, sessionID string, stepIndex uint32, toolName string, args *canon.Value) (string, error) {
	sid, err := parseUUID(sessionID)
	if err != nil {
		return "", err
	}
	if !utf8.ValidString(toolName) {
		return "", fieldError("tool_name", "is not UTF-8")
	}
	if args == nil {
		return "", fieldError("args", "is missing")
	}
	canonical, err := d.Append(nil, args)
	if err != nil {
		return "", err
	}
	if uint64(len(toolName)) > math.MaxUint32 || uint64(len(canonical)) > math.MaxUint32 {
		return "", errors.New("tool name or canonical args longer than 2^32-1 bytes")
	}
	h := blake3.New()
	var u32 [4]byte
	_, _ = h.Write(sid[:])
	binary.LittleEndian.PutUint32(u32[:], stepIndex)
	_, _ = h.Write(u32[:])
	binary.LittleEndian.PutUint32(u32[:], uint32(len(toolName)))
	_, _ = h.Write(u32[:])
	_, _ = h.Write([]byte(toolName))
	binary.LittleEndian.PutUint32(u32[:], uint32(len(canonical)))
	_, _ = h.Write(u32[:])
	_, _ = h.Write(canonical)
	var sum [32]byte
	return hex.EncodeToString(h.Sum(sum[:0])), nil
}

// UndoLogRecord reads one call record {"session_id", "step_index",
// "tool_name", "args"} with d's input rules and returns its call_signature.
// step_index must be an integer literal in [0, 2^32-1] (-0 counts as 0, as
// Python's json.loads reads it); tool_name a string; args any JSON value,
// null included, but present. Other members are ignored.
func UndoLogRecord(d canon.Dialect, record []byte) (string, error) {
	v, err := parseRecord(d, record)
	if err != nil {
		return "", err
	}
	sid, err := stringField(&v, "session_id")
	if err != nil {
		return "", err
	}
	step, err := stepIndexField(&v)
	if err != nil {
		return "", err
	}
	name, err := stringField(&v, "tool_name")
	if err != nil {
		return "", err
	}
	args := v.Get("args")
	if args == nil {
		return "", fieldError("args", "is missing")
	}
	return UndoLogSignature(d, sid, step, name, args)
}

func stepIndexField(v *canon.Value) (uint32, error) {
	f := v.Get("step_index")
	if f == nil {
		return 0, fieldError("step_index", "is missing")
	}
	if f.Kind != canon.Number {
		return 0, fieldError("step_index", "must be a number, not "+f.Kind.String())
	}
	lit := f.Text
	if lit == "-0" {
		return 0, nil
	}
	if strings.ContainsAny(lit, ".eE") {
		return 0, fieldError("step_index", "must be an integer, not "+lit)
	}
	n, err := strconv.ParseUint(lit, 10, 32)
	if err != nil {
		return 0, fieldError("step_index", "must be in [0, 4294967295], not "+lit)
	}
	return uint32(n), nil
}

// parseUUID reads the UUID forms UndoLogSignature documents.
func parseUUID(s string) ([16]byte, error) {
	var u [16]byte
	t := s
	switch {
	case len(t) == 38 && t[0] == '{' && t[37] == '}':
		t = t[1:37]
	case len(t) == 45 && strings.EqualFold(t[:9], "urn:uuid:"):
		t = t[9:]
	}
	var digits string
	switch len(t) {
	case 36:
		if t[8] != '-' || t[13] != '-' || t[18] != '-' || t[23] != '-' {
			return u, uuidError(s)
		}
		digits = t[:8] + t[9:13] + t[14:18] + t[19:23] + t[24:]
	case 32:
		if len(s) != 32 { // braces and URN take the hyphenated form only
			return u, uuidError(s)
		}
		digits = t
	default:
		return u, uuidError(s)
	}
	if _, err := hex.Decode(u[:], []byte(digits)); err != nil {
		return u, uuidError(s)
	}
	return u, nil
}

func uuidError(s string) error {
	if len(s) > 64 {
		s = s[:64] + "..."
	}
	return fieldError("session_id", "is not a UUID: "+strconv.Quote(s))
}

// AdvisoryLockKey is the PostgreSQL advisory lock key UndoLog derives from
// a call_signature: FNV-1a 64 (offset basis 14695981039346656037, prime
// 1099511628211) over the bytes of the signature text as given (so case
// matters), reinterpreted as a signed int64.
func AdvisoryLockKey(signature string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(signature))
	return int64(h.Sum64())
}

// UndoLogProfiles returns the UndoLog canonical JSON profiles in the order
// a verifier should try them: the current Python SDK (the official
// vectors), the current Rust engine (which writes the stored rows), the
// TypeScript SDK, then the 0.1.0 Python SDK and Rust engine. A row that
// several reproduce is reported as the first's.
func UndoLogProfiles() []canon.Dialect {
	return []canon.Dialect{canon.UndoLogP3(), canon.UndoLogR3(), canon.UndoLogT2(), canon.UndoLogP1(), canon.UndoLogR1()}
}

// ErrNoUndoLogProfile is what errors.Is finds in the error
// MatchUndoLogProfile returns when no profile reproduces the stored
// signature.
var ErrNoUndoLogProfile = errors.New("no UndoLog profile reproduces the stored call_signature")

// UndoLogAttempt is one profile's outcome in an UndoLogMismatch.
type UndoLogAttempt struct {
	Profile   string // dialect name
	Signature string // what the profile computes, "" when Err is set
	Err       error  // why the profile could not compute one
}

// UndoLogMismatch reports that no profile reproduced a stored signature,
// with what each one computed.
type UndoLogMismatch struct {
	Stored   string
	Attempts []UndoLogAttempt
}

func (e *UndoLogMismatch) Error() string {
	var b strings.Builder
	b.WriteString(ErrNoUndoLogProfile.Error())
	b.WriteString(" (")
	for i, a := range e.Attempts {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(a.Profile)
		b.WriteString(": ")
		if a.Err != nil {
			b.WriteString(a.Err.Error())
		} else {
			b.WriteString(a.Signature)
		}
	}
	b.WriteString(")")
	return b.String()
}

// Is makes errors.Is(err, ErrNoUndoLogProfile) true.
func (e *UndoLogMismatch) Is(target error) bool { return target == ErrNoUndoLogProfile }

// MatchUndoLogProfile says which profile reproduces stored, the
// call_signature recorded for record (as read by UndoLogRecord). It tries
// UndoLogProfiles in order and returns the name of the first that matches.
// When none does it returns "" and an *UndoLogMismatch (errors.Is
// ErrNoUndoLogProfile) listing what each profile computed or why it could
// not. A stored value that is not 64 lowercase hex characters, or a record
// whose session_id, step_index, tool_name or args are missing or unusable
// (a shape no profile changes), is a *FieldError instead.
func MatchUndoLogProfile(record []byte, stored string) (string, error) {
	if !isLowerHex(stored, UndoLogSignatureLen) {
		return "", fieldError("call_signature", "must be 64 lowercase hex characters")
	}
	mismatch := &UndoLogMismatch{Stored: stored}
	for _, d := range UndoLogProfiles() {
		sig, err := UndoLogRecord(d, record)
		if err == nil && sig == stored {
			return d.Name(), nil
		}
		var fe *FieldError
		if errors.As(err, &fe) {
			// The record's shape is wrong, which no profile changes.
			return "", err
		}
		mismatch.Attempts = append(mismatch.Attempts, UndoLogAttempt{Profile: d.Name(), Signature: sig, Err: err})
	}
	return "", mismatch
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
