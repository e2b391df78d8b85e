package verify

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestDetachCoversEveryString sets every string reachable in a Result
// (fields, unexported ones, slices, pointers, every axis) to a substring of
// one buffer, detaches the Result from it, overwrites the buffer, and
// checks that the Result's binary form, which carries every field, did not
// change: a string field added to Result and not to detach fails here.
func TestDetachCoversEveryString(t *testing.T) {
	buf := []byte(strings.Repeat("abcdefgh", 512))
	strs := 0
	var r Result
	n := 0
	fillAll(t, reflect.ValueOf(&r).Elem(), &n, func(int) string {
		s := unsafe.String(&buf[3*strs], 3)
		strs++
		return s
	})
	if strs < 40 {
		t.Fatalf("only %d strings set; the fill misses fields", strs)
	}
	(&r).detach(buf)
	before := (&r).appendBinary(nil)
	for i := range buf {
		buf[i] = 'X'
	}
	if after := (&r).appendBinary(nil); !bytes.Equal(after, before) {
		t.Errorf("a string still points into the parsed bytes: give it a copy in Detach\n%q\nwas\n%q", after, before)
	}
}
