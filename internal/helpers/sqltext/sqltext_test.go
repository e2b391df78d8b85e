package sqltext

import "testing"

func TestLiterals(t *testing.T) {
	if got, want := String(`it's a "path"`), `'it''s a "path"'`; got != want {
		t.Errorf("String = %s, want %s", got, want)
	}
	if got, want := Strings([]string{"a", "b'c"}), `'a', 'b''c'`; got != want {
		t.Errorf("Strings = %s, want %s", got, want)
	}
	if got, want := List([]string{"/x/1.parquet", "o'k"}), `['/x/1.parquet', 'o''k']`; got != want {
		t.Errorf("List = %s, want %s", got, want)
	}
	if got, want := List(nil), `[]`; got != want {
		t.Errorf("List(nil) = %s, want %s", got, want)
	}
}
