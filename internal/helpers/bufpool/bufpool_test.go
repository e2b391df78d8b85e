package bufpool

import "testing"

// TestPool checks that a buffer given back is handed out again, empty, and
// that an oversized one is never kept. sync.Pool may drop what it is given
// (at random under the race detector), so reuse is tried a few times.
func TestPool(t *testing.T) {
	var p Pool
	b := append(make([]byte, 0, 100), "abc"...)
	reused := false
	for range 20 {
		p.Put(b)
		got := p.Get()
		if len(got) != 0 {
			t.Fatalf("got a buffer of length %d, want it empty", len(got))
		}
		if cap(got) == 100 && &got[:1][0] == &b[0] {
			reused = true
			break
		}
	}
	if !reused {
		t.Fatal("a buffer given back was never handed out again")
	}
	for range 20 {
		p.Put(make([]byte, 0, MaxCap+1))
		if got := p.Get(); cap(got) > MaxCap {
			t.Fatalf("kept a buffer of %d bytes", cap(got))
		}
	}
}
