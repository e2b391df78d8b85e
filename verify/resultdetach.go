package verify

import (
	"strings"
	"unsafe"
)

// detach gives every string of r that points into b a copy of its own, so
// that r stays valid when b is written again: Verify parses a receipt
// without copying it (canon.ParseBorrowed), and the Result's fields are
// substrings of it. TestDetachCoversEveryString fails when a string field
// is added to Result and not here.
func (r *Result) detach(b []byte) {
	if len(b) == 0 {
		return
	}
	lo := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	hi := lo + uintptr(len(b))
	own := func(s *string) {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(*s))); len(*s) > 0 && p >= lo && p < hi {
			*s = strings.Clone(*s)
		}
	}
	own(&r.Source)
	own(&r.Format)
	own((*string)(&r.Verdict))
	for i := range r.Reasons {
		own((*string)(&r.Reasons[i]))
	}
	own(&r.Error)
	for i := range r.Axes.axes {
		ax := &r.Axes.axes[i]
		own((*string)(&ax.Status))
		own((*string)(&ax.Reason))
		own(&ax.Note)
	}
	f := &r.Fields
	for _, s := range f.texts() {
		own(s)
	}
	if f.Lifecycle != nil {
		own(&f.Lifecycle.Kind)
		own(&f.Lifecycle.Head)
		own(&f.Lifecycle.ConsistencyRoot)
	}
	for i := range f.ToolServers {
		own(&f.ToolServers[i])
	}
	fp := &r.Fingerprints
	for _, s := range fp.texts() {
		own(s)
	}
	if fp.PayloadDigest != nil {
		own(&fp.PayloadDigest.Hash)
	}
	own(&r.link.Prev)
	own(&r.link.Scope)
}
