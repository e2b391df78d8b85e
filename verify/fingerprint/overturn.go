package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"github.com/receiptverify/verify/verify/canon"
)

// OverturnToolCall is the kind of an Overturn fingerprint for a tool call,
// and the kind OverturnRecord uses when a record names none.
const OverturnToolCall = "tool_call"

// OverturnOptions is what a tool declares about which of its arguments
// identify a call. A list counts only when its Has flag is set, so a
// declared empty list is told apart from no declaration.
type OverturnOptions struct {
	MatchOn       []string // keep only these top-level keys
	IgnoreArgs    []string // drop these top-level keys
	HasMatchOn    bool
	HasIgnoreArgs bool
}

// OverturnSelect is the contract's select(args). When the tool declares
// matchOn, only those top-level keys are kept, in args' order, and a key
// that args lacks is left out (not set to null); matchOn wins over
// ignoreArgs. Else, when it declares ignoreArgs, those top-level keys are
// dropped. Else, and whenever args is not an object (a string, number,
// array, boolean or null), args is returned as it is.
//
// A declared empty matchOn keeps nothing, giving {}: the reference tests
// the declaration (`if (matchOn)`, and [] is truthy in JavaScript), and a
// tool that declares matchOn: [] says that none of its arguments matter.
// A declared empty ignoreArgs drops nothing.
//
// The result shares members with args; neither is modified.
func OverturnSelect(args *canon.Value, opts OverturnOptions) canon.Value {
	if args == nil {
		return canon.Value{Kind: canon.Null}
	}
	if args.Kind != canon.Object || (!opts.HasMatchOn && !opts.HasIgnoreArgs) {
		return *args
	}
	var keep func(name string) bool
	if opts.HasMatchOn {
		keep = func(name string) bool { return contains(opts.MatchOn, name) }
	} else {
		keep = func(name string) bool { return !contains(opts.IgnoreArgs, name) }
	}
	n := 0
	for i := range args.Members {
		if keep(args.Members[i].Name) {
			n++
		}
	}
	out := canon.Value{Kind: canon.Object, Members: make([]canon.Member, 0, n)}
	for i := range args.Members {
		if keep(args.Members[i].Name) {
			out.Members = append(out.Members, args.Members[i])
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Overturn returns the Overturn v1 fingerprint of a call whose arguments
// have already been selected (pass OverturnSelect's result, or the args
// themselves for a tool that declares neither matchOn nor ignoreArgs):
// lowercase hex SHA-256 of kind + "\n" + name + "\n" + the canon.Overturn()
// form of args. kind and name are used exactly as given, not trimmed. A
// lone surrogate in kind or name is hashed as U+FFFD, as Node's UTF-8
// encoding of a JavaScript string does.
func Overturn(kind, name string, args canon.Value) (string, error) {
	buf := make([]byte, 0, len(kind)+len(name)+256)
	buf = appendUTF8(buf, kind)
	buf = append(buf, '\n')
	buf = appendUTF8(buf, name)
	buf = append(buf, '\n')
	buf, err := canon.Overturn().Append(buf, &args)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:]), nil
}

// appendUTF8 appends s with each lone surrogate (held in WTF-8 form) and
// each other invalid byte replaced by U+FFFD, one per surrogate, as Node's
// Buffer.from(s, "utf8") encodes a JavaScript string.
func appendUTF8(dst []byte, s string) []byte {
	if utf8.ValidString(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			if s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
				n = 3
			}
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i += n
			continue
		}
		dst = append(dst, s[i:i+n]...)
		i += n
	}
	return dst
}

// OverturnRecord reads one record {"name", "args", "matchOn"?,
// "ignoreArgs"?, "kind"?} with the Overturn dialect's input rules and
// returns its fingerprint. name must be a string; args must be present (any
// JSON value; null hashes as "null"); kind, when present, must be a string
// and defaults to "tool_call"; matchOn and ignoreArgs, when present, must
// be arrays of strings. An optional member that is null counts as absent,
// as JavaScript's `if (matchOn)` and `kind ?? "tool_call"` treat it. A
// field of the wrong type is a *FieldError naming it.
func OverturnRecord(record []byte) (string, error) {
	kind, name, args, err := readOverturnRecord(record)
	if err != nil {
		return "", err
	}
	return Overturn(kind, name, args)
}

// readOverturnRecord returns a record's kind, name and selected args.
func readOverturnRecord(record []byte) (kind, name string, selected canon.Value, err error) {
	v, err := parseRecord(canon.Overturn(), record)
	if err != nil {
		return "", "", canon.Value{}, err
	}
	if name, err = stringField(&v, "name"); err != nil {
		return "", "", canon.Value{}, err
	}
	kind = OverturnToolCall
	if k := v.Get("kind"); k != nil && k.Kind != canon.Null {
		if k.Kind != canon.String {
			return "", "", canon.Value{}, fieldError("kind", "must be a string, not "+k.Kind.String())
		}
		kind = k.Text
	}
	args := v.Get("args")
	if args == nil {
		return "", "", canon.Value{}, fieldError("args", "is missing")
	}
	var opts OverturnOptions
	if opts.MatchOn, opts.HasMatchOn, err = stringList(&v, "matchOn"); err != nil {
		return "", "", canon.Value{}, err
	}
	if opts.IgnoreArgs, opts.HasIgnoreArgs, err = stringList(&v, "ignoreArgs"); err != nil {
		return "", "", canon.Value{}, err
	}
	return kind, name, OverturnSelect(args, opts), nil
}

// stringList reads the optional array-of-strings member called field;
// present is false when it is absent or null.
func stringList(v *canon.Value, field string) (list []string, present bool, err error) {
	f := v.Get(field)
	if f == nil || f.Kind == canon.Null {
		return nil, false, nil
	}
	if f.Kind != canon.Array {
		return nil, false, fieldError(field, "must be an array of strings, not "+f.Kind.String())
	}
	list = make([]string, 0, len(f.Items))
	for i, item := range f.Items {
		if item.Kind != canon.String {
			return nil, false, fieldError(field, "element "+strconv.Itoa(i)+" must be a string, not "+item.Kind.String())
		}
		list = append(list, item.Text)
	}
	return list, true, nil
}
