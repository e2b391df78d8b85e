package verify

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// TestAxesJSONAsEncodingJSON pins Axes.MarshalJSON to what json.Marshal
// writes for each Axis, escapes included, on notes with every ASCII byte,
// HTML characters, invalid UTF-8 and U+2028/U+2029.
func TestAxesJSONAsEncodingJSON(t *testing.T) {
	t.Parallel()
	notes := []string{"", "plain", `quote " backslash \ slash /`, "<script>&amp;</script>", "\u2028\u2029 é 😀",
		"bad \xff utf-8 \xe2\x82", "\x00\x01\x08\x09\x0a\x0c\x0d\x1f\x7f"}
	for c := range 256 {
		notes = append(notes, "a"+string([]byte{byte(c)})+"b")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for range 2000 {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		notes = append(notes, string(b))
	}
	for i, note := range notes {
		a := axesOf(map[AxisName]Axis{axisOrder[i%numAxes]: {Status: StatusFail, Reason: Reason(note), Note: note}, AxisChain: {Status: StatusPass}})
		got, err := a.MarshalJSON() // directly: json.Marshal would re-escape what it calls
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		want.WriteByte('{')
		for _, name := range axisOrder {
			ax, ok := a.Get(name)
			if !ok {
				continue
			}
			if want.Len() > 1 {
				want.WriteByte(',')
			}
			k, _ := json.Marshal(string(name))
			v, _ := json.Marshal(ax)
			want.Write(k)
			want.WriteByte(':')
			want.Write(v)
		}
		want.WriteByte('}')
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("note %q:\n got %s\nwant %s", note, got, want.Bytes())
		}
	}
}

// TestAxisIndexFollowsAxisOrder checks that Axes' array has one slot per
// axis, in report order: an axis added to AxisOrder must be added to
// axisIndex too.
func TestAxisIndexFollowsAxisOrder(t *testing.T) {
	for i, name := range axisOrder {
		if got := axisIndex(name); got != i {
			t.Errorf("axisIndex(%s) = %d, want %d", name, got, i)
		}
	}
	if axisIndex("no_such_axis") != -1 {
		t.Error("an unknown name has a slot")
	}
}
