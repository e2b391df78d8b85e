package canon

import (
	"fmt"
	"sort"
	"strings"
)

// Dialect is one named canonical JSON profile: how it reads a document and
// how it writes the canonical bytes. It is a handle, cheap to copy and
// compare (two handles of one dialect are equal), on a profile no caller
// can change: the package's dialect functions and Lookup give them. The
// zero value is not usable.
type Dialect struct{ p *dialect }

// dialect is a profile: one table entry per dialect, behind the handles.
type dialect struct {
	name  string
	doc   string
	parse ParseOptions
	w     writer
}

// Name is the dialect's stable name, as given to `verify canon --dialect`.
func (d Dialect) Name() string { return d.p.name }

// Doc is a one-line description of the dialect.
func (d Dialect) Doc() string { return d.p.doc }

// Parse reads raw with this dialect's input rules (duplicate names, lone
// surrogates, depth). Number and string rules are applied when writing, so
// a Value built by hand is checked the same way.
func (d Dialect) Parse(raw []byte) (Value, error) { return Parse(raw, d.p.parse) }

// Append writes the canonical form of v to dst.
func (d Dialect) Append(dst []byte, v *Value) ([]byte, error) {
	out, _, err := d.p.w.append(dst, v, nil)
	return out, err
}

// AppendMarked is Append that also says where mark, a value inside v (a
// pointer Get returned, say), was written: out[start:end] is mark's
// canonical form, the bytes Append would write for mark alone, since a
// value's form does not depend on where it sits. end is 0 when mark was
// not written (not inside v, or a null the dialect drops). A caller that
// needs both forms writes them once.
func (d Dialect) AppendMarked(dst []byte, v, mark *Value) (out []byte, start, end int, err error) {
	out, at, err := d.p.w.append(dst, v, mark)
	return out, at[0], at[1], err
}

// Canonicalize parses raw and returns its canonical bytes.
func (d Dialect) Canonicalize(raw []byte) ([]byte, error) {
	return d.AppendCanonical(make([]byte, 0, len(raw)), raw)
}

// AppendCanonical parses raw and appends its canonical bytes to dst.
func (d Dialect) AppendCanonical(dst, raw []byte) ([]byte, error) {
	v, err := d.Parse(raw)
	if err != nil {
		return nil, err
	}
	return d.Append(dst, &v)
}

var registry = map[string]*dialect{}

// register adds d under its name and any aliases; each dialect's file calls
// it from init.
func register(d *dialect, aliases ...string) {
	for _, n := range append([]string{d.name}, aliases...) {
		if _, dup := registry[n]; dup {
			panic("canon: dialect registered twice: " + n)
		}
		registry[n] = d
	}
}

// Lookup returns the dialect called name.
func Lookup(name string) (Dialect, error) {
	if d, ok := registry[name]; ok {
		return Dialect{d}, nil
	}
	return Dialect{}, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(Names(), ", "))
}

// Names lists every dialect name and alias, sorted.
func Names() []string {
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
