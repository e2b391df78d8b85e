package canon

import (
	"cmp"
	"math/bits"
	"slices"
	"sync"

	"github.com/receiptverify/verify/internal/helpers/jsonscan"
)

// writer is the part of a dialect that turns a Value into canonical bytes.
// Each dialect is one writer configuration; the recursion, member ordering
// and error paths are shared.
type writer struct {
	order      func(a, b string) int                        // member name order
	name       func(dst []byte, s string) ([]byte, error)   // writes a member name
	str        func(dst []byte, s string) ([]byte, error)   // writes a string value
	number     func(dst []byte, lit string) ([]byte, error) // writes a number literal
	dropNulls  bool                                         // omit null members and array items (Overturn)
	trimString func(s string) string                        // applied to string values, if set (Overturn)
}

// encoder holds the scratch state of one Append call.
type encoder struct {
	w       *writer
	members []sortEntry // stack of members, sorted per object
	path    []pathSeg
	mark    *Value // AppendMarked: the value whose place to record
	markAt  [2]int // where mark's form starts and ends in the output
}

// sortEntry is a member on the encoder's stack with its sort key.
type sortEntry struct {
	key uint64 // see nameKey
	m   *Member
}

// noKey marks a name whose first bytes are not all ASCII.
const noKey = ^uint64(0)

// nameKey packs the first eight bytes of an ASCII name, zero-padded,
// big-endian into an integer, so most comparisons of a sort are one integer
// comparison. Two different keys order their names as every dialect does:
// byte order, which is also UTF-16 order when the bytes up to the first
// difference are ASCII (a shorter name's padding is below any byte but 0,
// and a 0 byte ties with the padding). Equal keys, and names with other
// bytes in the first eight, fall back to the dialect's comparison.
func nameKey(name string) uint64 {
	var k uint64
	if len(name) >= 8 {
		k = bits.ReverseBytes64(jsonscan.LE64(name))
	} else {
		for i := 0; i < len(name); i++ {
			k |= uint64(name[i]) << (56 - 8*i)
		}
	}
	if k&jsonscan.Highs != 0 {
		return noKey
	}
	return k
}

// append writes v's canonical form and says where mark, if it is a value
// inside v, was written (see Dialect.AppendMarked).
func (w *writer) append(dst []byte, v, mark *Value) ([]byte, [2]int, error) {
	sc := encoderPool.Get().(*encoder)
	e := encoder{w: w, members: sc.members[:0], path: sc.path[:0], mark: mark}
	if cap(dst) == 0 {
		dst = make([]byte, 0, 256) // most documents fit; saves the first growths
	}
	dst, err := e.value(dst, v)
	clear(e.members[:cap(e.members)])
	sc.members, sc.path = e.members[:0], e.path[:0]
	encoderPool.Put(sc)
	return dst, e.markAt, err
}

// encoderPool keeps the encoders' stacks between Append calls.
var encoderPool = sync.Pool{New: func() any { return new(encoder) }}

func (e *encoder) fail(err error) error {
	if ce, ok := err.(*Error); ok && ce.Path == "" {
		ce.Path = renderPath(e.path)
	}
	return err
}

func (e *encoder) value(dst []byte, v *Value) ([]byte, error) {
	if v == e.mark && v != nil {
		e.mark = nil // written once; the recursion below writes it
		start := len(dst)
		dst, err := e.value(dst, v)
		e.markAt = [2]int{start, len(dst)}
		return dst, err
	}
	var err error
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case False:
		return append(dst, "false"...), nil
	case True:
		return append(dst, "true"...), nil
	case Number:
		if dst, err = e.w.number(dst, v.Text); err != nil {
			return nil, e.fail(err)
		}
		return dst, nil
	case String:
		s := v.Text
		if e.w.trimString != nil {
			s = e.w.trimString(s)
		}
		if dst, err = e.w.str(dst, s); err != nil {
			return nil, e.fail(err)
		}
		return dst, nil
	case Array:
		dst = append(dst, '[')
		first := true
		for i := range v.Items {
			item := &v.Items[i]
			if e.w.dropNulls && item.Kind == Null {
				continue
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			e.path = append(e.path, pathSeg{index: i})
			dst, err = e.value(dst, item)
			e.path = e.path[:len(e.path)-1]
			if err != nil {
				return nil, err
			}
		}
		return append(dst, ']'), nil
	case Object:
		return e.object(dst, v)
	}
	return nil, e.fail(&Error{Reason: ReasonUnsupported, Offset: -1, Detail: "value of unknown kind"})
}

func (e *encoder) object(dst []byte, v *Value) ([]byte, error) {
	base := len(e.members)
	e.push(v)
	if !sortByKey(e.members[base:]) {
		e.members = e.members[:base]
		e.push(v) // input order again, for a sort that gives what it always gave
		own := e.members[base:]
		if !slices.IsSortedFunc(own, e.compare) {
			slices.SortFunc(own, e.compare)
		}
	}
	n := len(e.members) - base
	dst = append(dst, '{')
	var err error
	for k := 0; k < n; k++ {
		m := e.members[base+k].m // re-read: recursion may grow the stack
		if k > 0 {
			dst = append(dst, ',')
		}
		e.path = append(e.path, pathSeg{name: m.Name, index: -1})
		if dst, err = e.w.name(dst, m.Name); err != nil {
			return nil, e.fail(err)
		}
		dst = append(dst, ':')
		dst, err = e.value(dst, &m.Value)
		e.path = e.path[:len(e.path)-1]
		if err != nil {
			return nil, err
		}
	}
	e.members = e.members[:base]
	return append(dst, '}'), nil
}

// push puts an object's members, but for dropped nulls, on the stack in
// input order.
func (e *encoder) push(v *Value) {
	for i := range v.Members {
		if e.w.dropNulls && v.Members[i].Value.Kind == Null {
			continue
		}
		e.members = append(e.members, sortEntry{nameKey(v.Members[i].Name), &v.Members[i]})
	}
}

// smallSort is the member count up to which sortByKey tries an insertion
// sort; a larger object, which receipts hardly have, goes to slices.SortFunc.
const smallSort = 32

// sortByKey sorts a small object's members by key alone, by insertion,
// which compares integers in line instead of calling a comparison. When
// every name has a key and no two keys are equal, key order is the
// dialect's order without ties (see nameKey), so the result is the one any
// sort gives. Otherwise it reports false and leaves es in some order.
func sortByKey(es []sortEntry) bool {
	if len(es) > smallSort || (len(es) > 0 && es[0].key == noKey) {
		return false
	}
	for i := 1; i < len(es); i++ {
		x := es[i]
		if x.key == noKey {
			return false
		}
		j := i
		for ; j > 0 && es[j-1].key > x.key; j-- {
			es[j] = es[j-1]
		}
		if j > 0 && es[j-1].key == x.key {
			return false
		}
		es[j] = x
	}
	return true
}

func (e *encoder) compare(a, b sortEntry) int {
	if a.key != b.key && a.key != noKey && b.key != noKey {
		return cmp.Compare(a.key, b.key)
	}
	return e.w.order(a.m.Name, b.m.Name)
}
