package verify

import (
	"reflect"
	"testing"
)

// fillAll sets every settable field reachable from v, exported or not, to a
// value that differs by field (a string to str(n), n counting the fields
// set so far), so a field the binary form forgets cannot survive a round
// trip.
func fillAll(t *testing.T, v reflect.Value, n *int, str func(n int) string) {
	t.Helper()
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(str(*n))
	case reflect.Int, reflect.Int64:
		v.SetInt(-int64(*n) * 1000003)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fillAll(t, v.Elem(), n, str)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // Signed: not part of the form
		}
		v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		for i := range 2 {
			fillAll(t, v.Index(i), n, str)
		}
	case reflect.Struct:
		if a, ok := v.Addr().Interface().(*Axes); ok { // every axis, each filled
			for _, name := range axisOrder {
				var ax Axis
				fillAll(t, reflect.ValueOf(&ax).Elem(), n, str)
				a.Set(name, ax)
			}
			return
		}
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
			}
			fillAll(t, f, n, str)
		}
	default:
		t.Fatalf("fillAll: no rule for %s; teach AppendBinary, Detach and this test the new field", v.Type())
	}
}

// distinctText is fillAll's string for the n-th field: non-ASCII and a NUL
// included, as the binary form must carry any text.
func distinctText(n int) string {
	return "s" + string(rune('a'+n%26)) + "é\x00" + string(rune('0'+n%10))
}

func TestResultBinaryRoundTrip(t *testing.T) {
	var full Result
	n := 0
	fillAll(t, reflect.ValueOf(&full).Elem(), &n, distinctText)
	cases := map[string]*Result{
		"every field":   &full,
		"zero":          {},
		"empty reasons": {Reasons: []Reason{}, Axes: Axes{}},
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			b := want.appendBinary([]byte("prefix"))
			var got Result
			if err := (&got).UnmarshalBinary(b[len("prefix"):]); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(&got, want) {
				t.Fatalf("round trip changed the result:\n got %#v\nwant %#v", got, *want)
			}
			for i := range len(b) - len("prefix") {
				if err := new(Result).UnmarshalBinary(b[len("prefix") : len("prefix")+i]); err == nil {
					t.Fatalf("a form cut to %d bytes was accepted", i)
				}
			}
		})
	}
}

// FuzzResultBinary: the spool decoder never panics on damaged bytes, and
// whatever it accepts encodes back to a form that decodes to the same
// result, so encoder and decoder agree on every field.
func FuzzResultBinary(f *testing.F) {
	b := (&Result{Version: 1, Format: "asqav-native", Axes: axesOf(map[AxisName]Axis{AxisChain: {Status: StatusPass}})}).appendBinary(nil)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Result
		if (&r).UnmarshalBinary(data) != nil {
			return
		}
		again := (&r).appendBinary(nil)
		var r2 Result
		if err := (&r2).UnmarshalBinary(again); err != nil || !reflect.DeepEqual(&r, &r2) {
			t.Fatalf("re-encoding changed the result: %v", err)
		}
	})
}
