// Package textdiff shows how two dumps of rows differ, one row a line, for
// tests that compare a database's or a report's contents.
package textdiff

import (
	"fmt"
	"strings"
)

// Lines lists the lines of a not in b (-) and of b not in a (+), each cut
// to 300 bytes.
func Lines(a, b string) string {
	in := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(s, "\n") {
			m[l] = true
		}
		return m
	}
	ma, mb := in(a), in(b)
	var out strings.Builder
	for _, l := range strings.Split(a, "\n") {
		if !mb[l] {
			fmt.Fprintf(&out, "- %.300s\n", l)
		}
	}
	for _, l := range strings.Split(b, "\n") {
		if !ma[l] {
			fmt.Fprintf(&out, "+ %.300s\n", l)
		}
	}
	return out.String()
}
