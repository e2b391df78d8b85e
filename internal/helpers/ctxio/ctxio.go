// Package ctxio makes reads stop when a context is done. A read loop over
// a source that never ends (/dev/zero, a stalled pipe that keeps trickling)
// otherwise runs on after SIGTERM: bufio and lines.Read loop until a line
// ends, and a device without newlines never ends one.
package ctxio

import (
	"context"
	"io"
)

// Reader returns r whose every Read first checks ctx: once ctx is done, Read
// returns ctx.Err() without reading. A Read already blocked in r is not
// interrupted; callers that read from a source that may block forever
// (standard input) also wait on ctx.Done beside the read.
func Reader(ctx context.Context, r io.Reader) io.Reader {
	if ctx.Done() == nil { // never cancelled
		return r
	}
	return &reader{ctx: ctx, r: r}
}

type reader struct {
	ctx context.Context
	r   io.Reader
}

func (c *reader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ReadCloser is Reader for an io.ReadCloser: Close closes rc.
func ReadCloser(ctx context.Context, rc io.ReadCloser) io.ReadCloser {
	return struct {
		io.Reader
		io.Closer
	}{Reader(ctx, rc), rc}
}
