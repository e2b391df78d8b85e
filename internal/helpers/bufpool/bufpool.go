// Package bufpool recycles the byte buffers a hot path writes and drops
// once per record (a line read, a spool frame, a canonical payload, a
// decoded signature), so that a long stream does not allocate them anew
// for every record.
package bufpool

import "sync"

// MaxCap is the capacity above which a buffer is dropped, not kept: one
// huge record must not pin its buffer for the rest of a run.
const MaxCap = 64 << 10

// Pool is a set of free buffers. The zero value is ready to use.
type Pool struct{ free sync.Pool }

// Get returns an empty buffer, a free one when there is one.
func (p *Pool) Get() []byte {
	if b, ok := p.free.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// Put gives back a buffer that nothing references any more.
func (p *Pool) Put(b []byte) {
	if cap(b) > 0 && cap(b) <= MaxCap {
		b = b[:0]
		p.free.Put(&b)
	}
}
