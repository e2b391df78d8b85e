// Package termtext makes text taken from receipts, archives and file names
// safe to print on a terminal or into a line-oriented log. A hostile
// receipt can put any character in a tool name, a key id or a chain hash,
// and the verifier's text output quotes such values in its notes: written
// as they are, an escape sequence would recolour or clear the auditor's
// screen, and a line break would start a line of the attacker's making
// ("...: PASS") that a reader or a log parser takes for the tool's own.
package termtext

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that a terminal or a log reader
// acts on rather than shows written as a Go escape (\n, \x1b, \u202e):
// control characters (C0, DEL and C1: they end lines, move the cursor and
// begin escape sequences), Unicode format characters (bidirectional
// overrides that reorder what is shown, zero-width characters), the line
// and paragraph separators, and bytes that are not UTF-8. Text without
// them comes back unchanged.
func Escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case mustEscape(r):
			b.WriteString(escapeRune(r))
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the index of the first byte of s that Escape rewrites,
// or -1.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if mustEscape(rune(c)) {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || mustEscape(r) {
			return i
		}
		i += size
	}
	return -1
}

// mustEscape reports whether Escape rewrites r.
func mustEscape(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r)
}

// escapeRune is r as Go writes it in a quoted string: \n, \x1b, \u202e.
func escapeRune(r rune) string {
	q := strconv.QuoteRuneToASCII(r)
	return q[1 : len(q)-1] // between the quotes
}
