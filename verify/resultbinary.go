package verify

import (
	"encoding/binary"
	"errors"
)

// AppendBinary appends a compact binary form of r to b: the stream's
// spool codec, so that a result waits in a spool file instead of being
// verified twice. Everything but Signed is kept, unexported state included
// (TestResultBinaryRoundTrip fills every field to pin that), so
// UnmarshalBinary gives back a result that judges and renders the same.
// The form is private to one run: no version, no promise across releases.
func (r *Result) AppendBinary(b []byte) ([]byte, error) { return r.appendBinary(b), nil }

// appendBinary is AppendBinary, which cannot fail.
func (r *Result) appendBinary(b []byte) []byte {
	w := binWriter{b}
	w.int(int64(r.Version))
	w.str(r.Source)
	w.int(int64(r.Line))
	w.str(r.Format)
	w.str(string(r.Verdict))
	w.uint(uint64(len(r.Reasons)))
	for _, reason := range r.Reasons {
		w.str(string(reason))
	}
	w.bool(r.Reasons == nil)
	w.str(r.Error)
	w.uint(uint64(r.Axes.Len()))
	for name, ax := range r.Axes.All() {
		w.str(string(name))
		w.str(string(ax.Status))
		w.str(string(ax.Reason))
		w.str(ax.Note)
	}

	f := &r.Fields
	for _, s := range f.texts() {
		w.str(*s)
	}
	w.bool(f.Step != nil)
	if f.Step != nil {
		w.int(*f.Step)
	}
	w.uint(uint64(len(f.ToolServers)))
	for _, s := range f.ToolServers {
		w.str(s)
	}
	w.bool(f.KeySelfAsserted)
	w.bool(f.Lifecycle != nil)
	if lc := f.Lifecycle; lc != nil {
		w.str(lc.Kind)
		w.int(lc.HeartbeatSeconds)
		w.int(lc.FinalSeq)
		w.int(lc.ReceiptCount)
		w.str(lc.Head)
		w.int(lc.ConsistencySize)
		w.str(lc.ConsistencyRoot)
	}

	fp := &r.Fingerprints
	for _, s := range fp.texts() {
		w.str(*s)
	}
	w.bool(fp.PayloadDigest != nil)
	if fp.PayloadDigest != nil {
		w.str(fp.PayloadDigest.Hash)
		w.int(int64(fp.PayloadDigest.Size))
	}

	w.bool(r.link.Present)
	w.bool(r.link.Genesis)
	w.str(r.link.Prev)
	w.str(r.link.Scope)
	w.bool(r.strictTool)
	return w.b
}

// UnmarshalBinary reads what AppendBinary wrote into r, replacing every
// field. Strings share one copy of data.
func (r *Result) UnmarshalBinary(data []byte) error {
	rd := binReader{s: string(data)}
	*r = Result{}
	r.Version = int(rd.int())
	r.Source = rd.str()
	r.Line = int(rd.int())
	r.Format = rd.str()
	r.Verdict = Verdict(rd.str())
	if n := rd.count(); n > 0 {
		r.Reasons = make([]Reason, n)
		for i := range r.Reasons {
			r.Reasons[i] = Reason(rd.str())
		}
	}
	if !rd.bool() && r.Reasons == nil {
		r.Reasons = []Reason{}
	}
	r.Error = rd.str()
	for range rd.count() {
		name := AxisName(rd.str())
		ax := Axis{Status: Status(rd.str()), Reason: Reason(rd.str()), Note: rd.str()}
		if axisIndex(name) < 0 {
			rd.err, rd.pos = errBinaryAxis, len(rd.s)
			break
		}
		r.Axes.Set(name, ax)
	}

	f := &r.Fields
	for _, s := range f.texts() {
		*s = rd.str()
	}
	if rd.bool() {
		step := rd.int()
		f.Step = &step
	}
	if n := rd.count(); n > 0 {
		f.ToolServers = make([]string, n)
		for i := range f.ToolServers {
			f.ToolServers[i] = rd.str()
		}
	}
	f.KeySelfAsserted = rd.bool()
	if rd.bool() {
		f.Lifecycle = &Lifecycle{Kind: rd.str(), HeartbeatSeconds: rd.int(), FinalSeq: rd.int(), ReceiptCount: rd.int(), Head: rd.str(),
			ConsistencySize: rd.int(), ConsistencyRoot: rd.str()}
	}

	fp := &r.Fingerprints
	for _, s := range fp.texts() {
		*s = rd.str()
	}
	if rd.bool() {
		fp.PayloadDigest = &PayloadDigest{Hash: rd.str(), Size: int(rd.int())}
	}

	r.link.Present = rd.bool()
	r.link.Genesis = rd.bool()
	r.link.Prev = rd.str()
	r.link.Scope = rd.str()
	r.strictTool = rd.bool()
	if rd.err == nil && rd.pos != len(rd.s) {
		rd.err = errTrailingBinary
	}
	return rd.err
}

var (
	errShortBinary    = errors.New("verify: truncated binary result")
	errTrailingBinary = errors.New("verify: trailing bytes after binary result")
	errBinaryAxis     = errors.New("verify: unknown axis in binary result")
)

type binWriter struct{ b []byte }

func (w *binWriter) uint(u uint64) { w.b = binary.AppendUvarint(w.b, u) }
func (w *binWriter) int(i int64)   { w.b = binary.AppendVarint(w.b, i) }
func (w *binWriter) str(s string) {
	w.uint(uint64(len(s)))
	w.b = append(w.b, s...)
}

func (w *binWriter) bool(v bool) {
	if v {
		w.b = append(w.b, 1)
	} else {
		w.b = append(w.b, 0)
	}
}

// binReader reads binWriter's encoding; after the first error every read
// returns a zero value and err keeps that error.
type binReader struct {
	s   string
	pos int
	err error
}

func (r *binReader) fail() { r.err, r.pos = errShortBinary, len(r.s) }

func (r *binReader) uint() uint64 {
	var u uint64
	for shift := uint(0); shift < 64 && r.pos < len(r.s); shift += 7 {
		b := r.s[r.pos]
		r.pos++
		u |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return u
		}
	}
	r.fail()
	return 0
}

func (r *binReader) int() int64 {
	u := r.uint()
	return int64(u>>1) ^ -int64(u&1) // zigzag, as binary.AppendVarint writes
}

// count reads a length that cannot exceed the bytes left (each counted
// item takes at least one byte), so hostile input cannot make it allocate.
func (r *binReader) count() int {
	n := r.uint()
	if n > uint64(len(r.s)-r.pos) {
		r.fail()
		return 0
	}
	return int(n)
}

func (r *binReader) str() string {
	n := r.count()
	s := r.s[r.pos : r.pos+n]
	r.pos += n
	return s
}

func (r *binReader) bool() bool {
	if r.pos >= len(r.s) {
		r.fail()
		return false
	}
	b := r.s[r.pos]
	r.pos++
	return b == 1
}
