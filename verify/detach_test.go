package verify

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unsafe"
)

// TestDetachCoversEveryString sets every string reachable in a Result
// (fields, unexported ones, slices, arrays, pointers) to a substring of one
// buffer, detaches the Result from it, and checks that none still points
// into the buffer: a string field added to Result and not to detach fails
// here.
func TestDetachCoversEveryString(t *testing.T) {
	buf := []byte(strings.Repeat("abcdefgh", 512))
	next := 0
	var r Result
	walkStrings(t, reflect.ValueOf(&r).Elem(), func(s *string) {
		*s = unsafe.String(&buf[next], 3)
		next += 3
	})
	if next < 40 {
		t.Fatalf("only %d strings set; the walk misses fields", next/3)
	}
	r.detach(buf)
	lo, hi := uintptr(unsafe.Pointer(&buf[0])), uintptr(unsafe.Pointer(&buf[0]))+uintptr(len(buf))
	walkStrings(t, reflect.ValueOf(&r).Elem(), func(s *string) {
		if p := uintptr(unsafe.Pointer(unsafe.StringData(*s))); p >= lo && p < hi {
			t.Errorf("a string (%q) still points into the parsed bytes: give it a copy in detach", *s)
		}
	})
}

// TestVerifyDoesNotKeepRaw verifies every conformance receipt (every
// format), overwrites the bytes it was verified from, and checks that its
// Result did not change.
func TestVerifyDoesNotKeepRaw(t *testing.T) {
	receipts, err := filepath.Glob("../testdata/receipts/*/receipt.json")
	if err != nil || len(receipts) != 52 {
		t.Fatalf("%d cases: %v", len(receipts), err)
	}
	for _, path := range receipts {
		dir := filepath.Dir(path)
		raw := readFile(t, path)
		res, _ := corpusVerifier(t, dir).Verify(raw)
		want := res.AppendJSON(nil)
		for i := range raw {
			raw[i] = 'X'
		}
		if got := res.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("%s: the result changed with the bytes it came from:\n%s\nwas\n%s", dir, got, want)
		}
	}
}

// walkStrings calls fn on every string reachable from v.
func walkStrings(t *testing.T, v reflect.Value, fn func(*string)) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		fn((*string)(unsafe.Pointer(v.UnsafeAddr())))
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		walkStrings(t, v.Elem(), fn)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // Raw and Rendered: the caller's
		}
		if v.Len() == 0 {
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
		}
		for i := range v.Len() {
			walkStrings(t, v.Index(i), fn)
		}
	case reflect.Array:
		for i := range v.Len() {
			walkStrings(t, v.Index(i), fn)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Field(i)
			if !f.CanSet() {
				f = reflect.NewAt(f.Type(), f.Addr().UnsafePointer()).Elem()
			}
			walkStrings(t, f, fn)
		}
	case reflect.Int, reflect.Int64, reflect.Bool, reflect.Uint16:
	default:
		t.Fatalf("walkStrings: no rule for %s", v.Type())
	}
}

// TestVerifyOptions checks what each VerifyOptions field leaves out, on a
// real ML-DSA-65 receipt, and that the verdict does not depend on them.
func TestVerifyOptions(t *testing.T) {
	dir := "../testdata/receipts/asqav-06-mldsa65-payload-prod"
	raw := readFile(t, filepath.Join(dir, "receipt.json"))
	v := corpusVerifier(t, dir)
	full, _ := v.VerifyWith(raw, VerifyOptions{})
	if full.Fields.Signature == "" || len(full.Fields.SignatureSHA256) != 64 {
		t.Fatalf("default: signature %d bytes, hash %q", len(full.Fields.Signature), full.Fields.SignatureSHA256)
	}
	for _, o := range []VerifyOptions{{DropSignature: true}, {OmitSignatureHash: true}, {DropSignature: true, OmitSignatureHash: true}} {
		res, _ := v.VerifyWith(raw, o)
		if (res.Fields.Signature == "") != o.DropSignature || (res.Fields.SignatureSHA256 == "") != o.OmitSignatureHash {
			t.Errorf("%+v: signature %d bytes, hash %q", o, len(res.Fields.Signature), res.Fields.SignatureSHA256)
		}
		if res.Verdict != full.Verdict || res.Fields.SignatureSHA256 != "" && res.Fields.SignatureSHA256 != full.Fields.SignatureSHA256 {
			t.Errorf("%+v: verdict %s, hash %s; want %s, %s", o, res.Verdict, res.Fields.SignatureSHA256, full.Verdict, full.Fields.SignatureSHA256)
		}
	}
}
