package verify

import (
	"slices"
	"strings"
)

// noteCoverage names, in the signature axis's note, the members of the
// receipt, sorted, that its format's signature (or, for a format that only
// fingerprints, its fingerprint) does not cover: every member outside
// format.signs (and check.alsoSigned), or the members of format.unsigned
// it holds. Whoever reads a verdict then knows which content nothing
// protects: a PASS says nothing of them. It is the one place that decides
// it, for every format, whatever the signature's outcome.
func (c *check) noteCoverage() {
	var out []string
	for _, m := range c.doc.Members {
		switch {
		case slices.Contains(c.alsoSigned, m.Name):
		case c.f.signs != nil && !slices.Contains(c.f.signs, m.Name),
			c.f.signs == nil && slices.Contains(c.f.unsigned, m.Name):
			out = append(out, m.Name)
		}
	}
	if len(out) == 0 {
		return
	}
	ax, ok := c.res.Axes.Get(AxisSignature)
	if !ok {
		return
	}
	slices.Sort(out)
	extra := "not signed: " + strings.Join(out, ", ")
	if ax.Note != "" {
		extra = ax.Note + "; " + extra
	}
	ax.Note = extra
	c.res.Axes.Set(AxisSignature, ax)
}
