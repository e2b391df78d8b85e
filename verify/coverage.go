package verify

import (
	"slices"
	"strings"
)

// noteCoverage names, in the signature axis's note, the members of the
// receipt, sorted, that its format's signature does not cover (format.signs), so
// that whoever reads a verdict knows which content nothing protects: a
// PASS says nothing of them. It is the one place that decides it, for
// every format, whatever the signature's outcome.
func (c *check) noteCoverage() {
	if c.f.signs == nil {
		return
	}
	var out []string
	for _, m := range c.doc.Members {
		if !slices.Contains(c.f.signs, m.Name) && !slices.Contains(c.alsoSigned, m.Name) {
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
