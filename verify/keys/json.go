package keys

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// member is one name/value pair of a JSON object, in file order.
type member struct {
	name  string
	value json.RawMessage
}

// objectMembers splits a JSON object into its members, keeping their order
// and refusing duplicate names: encoding/json would silently keep the last
// one, and a key file that says two things about one name is ambiguous.
// It returns errNotObject if data is valid JSON but not an object.
func objectMembers(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errNotObject
	}
	var out []member
	seen := make(map[string]bool)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, ok := tok.(string)
		if !ok {
			return nil, errors.New("object member name is not a string")
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if seen[name] {
			return nil, errors.New("duplicate member " + quote(name))
		}
		seen[name] = true
		out = append(out, member{name, v})
		if len(out) > MaxEntriesPerFile*16 {
			return nil, errTooMany
		}
	}
	if _, err := dec.Token(); err != nil { // the closing '}'
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the top-level value")
	}
	return out, nil
}

var (
	errNotObject = errors.New("not a JSON object")
	errTooMany   = errors.New("too many members")
)

// kind classifies a raw JSON value by its first byte.
func kind(v json.RawMessage) byte {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return 0
	}
	switch c := v[0]; c {
	case '{', '[', '"', 'n', 't', 'f':
		return c
	}
	return '0' // number
}

// fields is an object's members by name, for entries whose order does not
// matter.
type fields map[string]json.RawMessage

func toFields(ms []member) fields {
	f := make(fields, len(ms))
	for _, m := range ms {
		f[m.name] = m.value
	}
	return f
}

// str reads an optional string member. Absent and null give "", false.
// Any other non-string is an error naming the member.
func (f fields) str(name string) (string, bool, error) {
	v, ok := f[name]
	if !ok || kind(v) == 'n' {
		return "", false, nil
	}
	if kind(v) != '"' {
		return "", false, errors.New(name + " is not a string")
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", false, err
	}
	return s, true, nil
}
