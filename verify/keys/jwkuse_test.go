package keys

import (
	"errors"
	"strings"
	"testing"
)

// TestKeyUse: an entry whose use or key_ops excludes verifying loads with
// ReasonKeyUse and no public key; a private key is warned about and the
// public key still used.
func TestKeyUse(t *testing.T) {
	const pub = `"public_key":"oJql9HpnWYAv+VX43C0qFKXJnSO+l/hkEn/5ODRVpPA=","alg":"Ed25519"`
	for _, c := range []struct {
		extra  string
		usable bool
	}{
		{``, true},
		{`,"use":"sig"`, true},
		{`,"key_ops":["verify","sign"]`, true},
		{`,"use":"enc"`, false},
		{`,"key_ops":["sign"]`, false},
		{`,"key_ops":"verify"`, false},
		{`,"use":7`, false},
	} {
		s, err := Load("k.json", []byte(`{"keys":[{"kid":"a","status":"active",`+pub+c.extra+`}]}`))
		if err != nil {
			t.Fatalf("%s: %v", c.extra, err)
		}
		k := s.Keys[0]
		if got := k.Public != nil; got != c.usable {
			t.Errorf("%s: usable %v, want %v", c.extra, got, c.usable)
		}
		var ke *Error
		if !c.usable && (!errors.As(k.Err, &ke) || ke.Reason != ReasonKeyUse) {
			t.Errorf("%s: err %v, want %s", c.extra, k.Err, ReasonKeyUse)
		}
	}
	s, err := Load("k.json", []byte(`{"keys":[{"kid":"a","status":"active",`+pub+`,"d":"AAAA"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDirectory(s)
	if err != nil {
		t.Fatal(err)
	}
	if w := d.Warnings(); len(w) != 1 || !strings.Contains(w[0], `k.json[0]: holds a private key (member "d")`) || s.Keys[0].Public == nil {
		t.Errorf("warnings %q, public %v", w, s.Keys[0].Public)
	}
}
