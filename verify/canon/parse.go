package canon

import (
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/receiptverify/verify/internal/helpers/jsonscan"
	"github.com/receiptverify/verify/internal/limits"
)

// Duplicates says what a parse does with a name that occurs twice in one
// object.
type Duplicates uint8

const (
	// RejectDuplicates fails the parse (RFC 8785, Asqav).
	RejectDuplicates Duplicates = iota
	// LastDuplicateWins keeps the last value, as JavaScript's JSON.parse,
	// Python's json.loads and serde_json do.
	LastDuplicateWins
)

// ParseOptions is what the dialects disagree on while reading a document.
type ParseOptions struct {
	MaxDepth            int // 0 means limits.MaxDepth
	Duplicates          Duplicates
	AllowLoneSurrogates bool // keep \ud800-style escapes as WTF-8 instead of failing
}

// Parse reads exactly one JSON document (RFC 8259, surrounding white space
// allowed) from data. It never panics and rejects invalid UTF-8.
func Parse(data []byte, opts ParseOptions) (Value, error) { return parse(string(data), opts) }

// ParseBorrowed is Parse without Parse's copy of data: the Value's strings
// point into data, which must not change while any of them is in use. It
// is for a caller that drops the Value, and copies what it keeps, before
// data is written again.
func ParseBorrowed(data []byte, opts ParseOptions) (Value, error) {
	return parse(unsafe.String(unsafe.SliceData(data), len(data)), opts)
}

func parse(data string, opts ParseOptions) (Value, error) {
	if len(data) > limits.MaxDocumentBytes {
		return Value{}, &Error{Reason: ReasonTooLarge, Offset: -1,
			Detail: "document is " + strconv.Itoa(len(data)) + " bytes, the limit is " + strconv.Itoa(limits.MaxDocumentBytes)}
	}
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = limits.MaxDepth
	}
	p := parser{src: data, opts: opts, stacks: stacksPool.Get().(*stacks)}
	defer p.release()
	p.skipSpace()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.skipSpace()
	if p.pos != len(p.src) {
		return Value{}, p.fail(ReasonTrailingData, "unexpected "+p.describe()+" after the document")
	}
	return v, nil
}

type pathSeg struct {
	name  string
	index int // -1 for an object member
}

type parser struct {
	src  string
	pos  int
	opts ParseOptions
	*stacks
	membersUsed, itemsUsed int      // how far up the stacks this parse wrote
	memberSlab             []Member // room for small objects' members, see keep
	itemSlab               []Value  // room for small arrays' items
}

// stacks are the parser's scratch space, reused across parses. members and
// items are shared by every object and array of a document: a value's
// members are gathered on top and copied out (see keep) when it ends, so no
// slice grows member by member. Each is empty between parses.
type stacks struct {
	path    []pathSeg
	members []Member
	items   []Value
	text    []byte // an escaped string's decoded text, until it is copied out
}

var stacksPool = sync.Pool{New: func() any { return new(stacks) }}

// release empties the stacks and returns them to the pool. The slots this
// parse used are cleared once here, not as each value ends, so the pool
// keeps no pointer into the document.
func (p *parser) release() {
	st := p.stacks
	clear(st.members[:max(p.membersUsed, len(st.members))])
	clear(st.items[:max(p.itemsUsed, len(st.items))])
	st.path, st.members, st.items = st.path[:0], st.members[:0], st.items[:0]
	stacksPool.Put(st)
}

func (p *parser) fail(r Reason, detail string) *Error {
	return &Error{Reason: r, Offset: p.pos, Path: renderPath(p.path), Detail: detail}
}

func (p *parser) failAt(off int, r Reason, detail string) *Error {
	return &Error{Reason: r, Offset: off, Path: renderPath(p.path), Detail: detail}
}

// describe names the byte at the current position for an error message.
func (p *parser) describe() string {
	if p.pos >= len(p.src) {
		return "end of input"
	}
	if strings.HasPrefix(p.src[p.pos:], "\uFEFF") { // as editors on Windows write at the start of a file
		return "byte order mark U+FEFF (bytes EF BB BF; JSON texts carry none)"
	}
	c := p.src[p.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.Quote(string(c))
	}
	return "byte 0x" + strconv.FormatUint(uint64(c), 16)
}

func (p *parser) skipSpace() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if p.pos >= len(p.src) {
		return Value{}, p.fail(ReasonSyntax, "unexpected end of input, a value was expected")
	}
	switch c := p.src[p.pos]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		return Value{Kind: String, Text: s}, err
	case c == '-' || (c >= '0' && c <= '9'):
		lit, err := p.number()
		return Value{Kind: Number, Text: lit}, err
	case strings.HasPrefix(p.src[p.pos:], "true"):
		p.pos += 4
		return Value{Kind: True}, nil
	case strings.HasPrefix(p.src[p.pos:], "false"):
		p.pos += 5
		return Value{Kind: False}, nil
	case strings.HasPrefix(p.src[p.pos:], "null"):
		p.pos += 4
		return Value{Kind: Null}, nil
	}
	return Value{}, p.fail(ReasonSyntax, "unexpected "+p.describe()+", a value was expected")
}

func (p *parser) object(depth int) (Value, error) {
	if depth > p.opts.MaxDepth {
		return Value{}, p.fail(ReasonTooDeep, "nesting deeper than "+strconv.Itoa(p.opts.MaxDepth)+" levels")
	}
	p.pos++ // '{'
	v := Value{Kind: Object}
	var names map[string]int // built once an object grows past smallObject
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	base := len(p.members)
	for {
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return Value{}, p.fail(ReasonSyntax, "unexpected "+p.describe()+", a member name was expected")
		}
		nameAt := p.pos
		name, err := p.str()
		if err != nil {
			return Value{}, err
		}
		p.skipSpace()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return Value{}, p.fail(ReasonSyntax, "unexpected "+p.describe()+", ':' was expected")
		}
		p.pos++
		p.skipSpace()
		p.path = append(p.path, pathSeg{name: name, index: -1})
		member, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return Value{}, err
		}
		i := -1
		if names != nil {
			if j, ok := names[name]; ok {
				i = j
			}
		} else {
			i = indexOfMember(p.members[base:], name)
		}
		if i >= 0 {
			if p.opts.Duplicates == RejectDuplicates {
				p.path = append(p.path, pathSeg{name: name, index: -1})
				e := p.failAt(nameAt, ReasonDuplicateMember, "member name "+strconv.Quote(name)+" occurs twice")
				p.path = p.path[:len(p.path)-1]
				return Value{}, e
			}
			p.members[base+i].Value = member
		} else {
			p.members = append(p.members, Member{Name: name, Value: member})
			if n := len(p.members) - base; names != nil {
				names[name] = n - 1
			} else if n > smallObject {
				names = make(map[string]int, 2*n)
				for j, m := range p.members[base:] {
					names[m.Name] = j
				}
			}
		}
		p.skipSpace()
		if p.pos >= len(p.src) {
			return Value{}, p.fail(ReasonSyntax, "unexpected end of input, ',' or '}' was expected")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			v.Members = keep(&p.memberSlab, p.members[base:], len(p.src))
			p.membersUsed = max(p.membersUsed, len(p.members))
			p.members = p.members[:base]
			return v, nil
		default:
			return Value{}, p.fail(ReasonSyntax, "unexpected "+p.describe()+", ',' or '}' was expected")
		}
	}
}

// smallObject is the member count up to which duplicate names are found by
// a linear scan (receipts' objects are small); larger objects use a map, so
// a hostile object with millions of members stays linear.
const smallObject = 32

func indexOfMember(ms []Member, name string) int {
	for i := range ms {
		if ms[i].Name == name {
			return i
		}
	}
	return -1
}

func (p *parser) array(depth int) (Value, error) {
	if depth > p.opts.MaxDepth {
		return Value{}, p.fail(ReasonTooDeep, "nesting deeper than "+strconv.Itoa(p.opts.MaxDepth)+" levels")
	}
	p.pos++ // '['
	v := Value{Kind: Array}
	p.skipSpace()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	base := len(p.items)
	for {
		p.skipSpace()
		p.path = append(p.path, pathSeg{index: len(p.items) - base})
		item, err := p.value(depth)
		p.path = p.path[:len(p.path)-1]
		if err != nil {
			return Value{}, err
		}
		p.items = append(p.items, item)
		p.skipSpace()
		if p.pos >= len(p.src) {
			return Value{}, p.fail(ReasonSyntax, "unexpected end of input, ',' or ']' was expected")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			v.Items = keep(&p.itemSlab, p.items[base:], len(p.src))
			p.itemsUsed = max(p.itemsUsed, len(p.items))
			p.items = p.items[:base]
			return v, nil
		default:
			return Value{}, p.fail(ReasonSyntax, "unexpected "+p.describe()+", ',' or ']' was expected")
		}
	}
}

// slabLen is how many members (or items) of small objects (arrays) share
// one allocation. A receipt's objects are mostly small (a signature, a
// digest, a context), so a few slabs hold a whole document's.
const slabLen = 16

// keep copies a finished object's members (an array's items) from the
// parser's stack into memory of their own, which the Value keeps. Small
// ones are carved from *slab, so one allocation serves several objects; the
// result's capacity ends at its length, so appending to it never writes
// over a neighbour. A slab holds at most a quarter of the input's length
// in members (items), so a short document gets a short one.
func keep[T any](slab *[]T, xs []T, inputLen int) []T {
	n := len(xs)
	if n > cap(*slab)-len(*slab) {
		if n > slabLen/2 {
			return append([]T(nil), xs...)
		}
		*slab = make([]T, 0, max(n, min(slabLen, inputLen/4)))
	}
	start := len(*slab)
	*slab = append(*slab, xs...)
	return (*slab)[start:len(*slab):len(*slab)]
}

// number checks RFC 8259 number syntax and returns the literal as written.
func (p *parser) number() (string, error) {
	start := p.pos
	s := p.src
	i := p.pos
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && s[i] >= '1' && s[i] <= '9':
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	default:
		p.pos = i
		return "", p.fail(ReasonSyntax, "a digit was expected in number")
	}
	if i < len(s) && s[i] == '.' {
		i++
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.pos = i
			return "", p.fail(ReasonSyntax, "a digit was expected after the decimal point")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if i >= len(s) || s[i] < '0' || s[i] > '9' {
			p.pos = i
			return "", p.fail(ReasonSyntax, "a digit was expected in the exponent")
		}
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
	}
	p.pos = i
	return s[start:i], nil
}

// str reads a string token and returns its decoded text. Text without
// escapes is returned as a substring of the input, without copying.
func (p *parser) str() (string, error) {
	p.pos++ // opening quote
	start := p.pos
	s := p.src
	i := start
	for {
		i = jsonscan.SkipPlain(s, i)
		if i >= len(s) {
			p.pos = i
			return "", p.fail(ReasonSyntax, "unterminated string")
		}
		switch c := s[i]; {
		case c == '"':
			p.pos = i + 1
			return s[start:i], nil
		case c == '\\':
			return p.unescape(start, i)
		case c < 0x20:
			p.pos = i
			return "", p.fail(ReasonSyntax, "unescaped control character in string")
		}
		size, err := p.utf8At(i)
		if err != nil {
			return "", err
		}
		i += size
	}
}

// utf8At checks the multi-byte UTF-8 sequence at i and returns its length.
func (p *parser) utf8At(i int) (int, error) {
	r, size := utf8.DecodeRuneInString(p.src[i:])
	if r == utf8.RuneError && size <= 1 {
		p.pos = i
		return 0, p.fail(ReasonInvalidUTF8, "invalid UTF-8 in string")
	}
	return size, nil
}

// unescape finishes a string token whose text starts at start and which has
// its first escape at i. The text is decoded into the parser's scratch
// buffer, so the only allocation is the returned string.
func (p *parser) unescape(start, i int) (string, error) {
	s := p.src
	buf := append(p.text[:0], s[start:i]...)
	defer func() { p.text = buf[:0] }()
	for {
		if i >= len(s) {
			p.pos = i
			return "", p.fail(ReasonSyntax, "unterminated string")
		}
		c := s[i]
		switch {
		case c == '"':
			p.pos = i + 1
			return string(buf), nil
		case c < 0x20:
			p.pos = i
			return "", p.fail(ReasonSyntax, "unescaped control character in string")
		case c == '\\':
			var err error
			if buf, i, err = p.escape(buf, i); err != nil {
				return "", err
			}
		case c < utf8.RuneSelf:
			j := jsonscan.SkipPlain(s, i+1)
			buf = append(buf, s[i:j]...)
			i = j
		default:
			size, err := p.utf8At(i)
			if err != nil {
				return "", err
			}
			buf = append(buf, s[i:i+size]...)
			i += size
		}
	}
}

// escape decodes the escape sequence at i, appends its text to buf and
// returns the index after it.
func (p *parser) escape(buf []byte, i int) ([]byte, int, error) {
	s := p.src
	if i+1 >= len(s) {
		p.pos = i
		return nil, 0, p.fail(ReasonSyntax, "unterminated escape")
	}
	switch e := s[i+1]; e {
	case '"', '\\', '/':
		return append(buf, e), i + 2, nil
	case 'b':
		return append(buf, '\b'), i + 2, nil
	case 'f':
		return append(buf, '\f'), i + 2, nil
	case 'n':
		return append(buf, '\n'), i + 2, nil
	case 'r':
		return append(buf, '\r'), i + 2, nil
	case 't':
		return append(buf, '\t'), i + 2, nil
	case 'u':
		return p.unicodeEscape(buf, i)
	default:
		p.pos = i
		return nil, 0, p.fail(ReasonSyntax, "invalid escape \\"+string(rune(e)))
	}
}

// unicodeEscape decodes the \uxxxx escape at i, with the low half that
// follows a high surrogate; a lone surrogate fails unless the options
// allow it, and is then kept as WTF-8.
func (p *parser) unicodeEscape(buf []byte, i int) ([]byte, int, error) {
	s := p.src
	r, ok := hex4(s, i+2)
	if !ok {
		p.pos = i
		return nil, 0, p.fail(ReasonSyntax, "\\u must be followed by four hex digits")
	}
	escAt := i
	i += 6
	if r >= 0xD800 && r <= 0xDBFF {
		if lo, ok := hex4(s, i+2); ok && i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
			return utf8.AppendRune(buf, 0x10000+(r-0xD800)<<10+(lo-0xDC00)), i + 6, nil
		}
	}
	if r >= 0xD800 && r <= 0xDFFF {
		if !p.opts.AllowLoneSurrogates {
			p.pos = escAt
			return nil, 0, p.fail(ReasonLoneSurrogate, "lone surrogate \\u"+s[escAt+2:escAt+6]+" in string")
		}
		return appendWTF8Surrogate(buf, r), i, nil
	}
	return utf8.AppendRune(buf, r), i, nil
}

func hex4(s string, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	var r rune
	for _, c := range []byte(s[at : at+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	return r, true
}

// renderPath writes a JSONPath-like location: $.payload.items[3]["odd name"].
func renderPath(path []pathSeg) string {
	if len(path) == 0 {
		return "$"
	}
	var b strings.Builder
	b.WriteByte('$')
	for _, seg := range path {
		if seg.index >= 0 {
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(seg.index))
			b.WriteByte(']')
			continue
		}
		if isIdentifier(seg.name) {
			b.WriteByte('.')
			b.WriteString(seg.name)
		} else {
			b.WriteByte('[')
			b.WriteString(strconv.Quote(seg.name))
			b.WriteByte(']')
		}
	}
	return b.String()
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range []byte(s) {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}
