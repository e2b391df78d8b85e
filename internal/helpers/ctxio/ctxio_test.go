package ctxio_test

import (
	"bufio"
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/helpers/ctxio"
	"github.com/receiptverify/verify/internal/helpers/lines"
)

// TestReadStopsOnCancel: lines.Read over /dev/zero, which never ends a
// line, returns once the context is cancelled.
func TestReadStopsOnCancel(t *testing.T) {
	t.Parallel()
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, _, err := lines.Read(bufio.NewReader(ctxio.Reader(ctx, f)), nil, 1<<10)
		done <- err
	}()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("lines.Read did not stop")
	}
}
