package sigalg_test

import (
	"encoding/base64"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/sigalg"
)

// FuzzDecodeBase64Any checks that an accepted value is the one canonical
// spelling of its bytes in the variant it was written in.
func FuzzDecodeBase64Any(f *testing.F) {
	for _, s := range []string{"", "QQ==", "QQ", "_-8", "+/8=", "oJql9HpnWYAv+VX43C0qFKXJnSO+l/hkEn/5ODRVpPA=", "QR=="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := sigalg.DecodeBase64Any(s)
		if err != nil {
			return
		}
		enc := base64.RawStdEncoding
		if strings.ContainsAny(s, "-_") {
			enc = base64.RawURLEncoding
		}
		if strings.HasSuffix(s, "=") {
			enc = enc.WithPadding(base64.StdPadding)
		}
		if got := enc.EncodeToString(b); got != s {
			t.Fatalf("%q decodes to %x, which encodes as %q", s, b, got)
		}
	})
}

// FuzzBase58 checks that decoding and encoding are inverse.
func FuzzBase58(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 1})
	f.Add([]byte{0xed, 0x01, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 512 {
			return
		}
		s := sigalg.EncodeBase58(b)
		_, got, err := sigalg.DecodeMultibase("z" + s)
		if err != nil || string(got) != string(b) {
			t.Fatalf("%x -> %q -> %x, %v", b, s, got, err)
		}
		if _, back, err := sigalg.DecodeMultibase("z" + string(b)); err == nil && sigalg.EncodeBase58(back) != string(b) {
			t.Fatalf("%q is not canonical base58", b)
		}
	})
}
