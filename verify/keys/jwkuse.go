package keys

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/receiptverify/verify/verify/reason"
)

// ReasonKeyUse is an entry whose JWK "use" or "key_ops" says it is not
// for verifying signatures (RFC 7517 §4.2, §4.3): it is kept, so that a
// receipt naming it is told why, but never verifies one.
const ReasonKeyUse = reason.KeyUseExcluded

// useExcluded says why an entry's use or key_ops member excludes
// verifying, "" when neither does. A key_ops that is not an array of
// strings excludes it too: what it allows cannot be known.
func useExcluded(f fields) string {
	use, hasUse, err := f.str("use")
	if err != nil {
		return "use is not a string"
	}
	if hasUse && use != "sig" {
		return fmt.Sprintf("use %q: not a signature key", use)
	}
	raw, ok := f["key_ops"]
	if !ok || kind(raw) == 'n' {
		return ""
	}
	var ops []string
	if err := json.Unmarshal(raw, &ops); err != nil {
		return "key_ops is not an array of strings"
	}
	if !slices.Contains(ops, "verify") {
		return fmt.Sprintf("key_ops %q does not allow verify", ops)
	}
	return ""
}

// privateMembers are the JWK members of private key material (RFC 7518
// §6.2.2, §6.3.2).
var privateMembers = []string{"d", "p", "q", "dp", "dq", "qi", "oth"}

// notePrivate records a warning when entry i carries private key
// material: a key file is public trust material, and a private key in it
// has been exposed to whoever can read it.
func (s *Snapshot) notePrivate(i int, f fields) {
	for _, m := range privateMembers {
		if _, ok := f[m]; ok {
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s[%d]: holds a private key (member %q): a key file needs only the public key; treat that private key as exposed", s.Name, i, m))
			return
		}
	}
}

// Warnings lists what the key files hold that they should not, such as
// private keys, in file order.
func (d *Directory) Warnings() []string {
	var out []string
	for _, s := range d.snaps {
		out = append(out, s.Warnings...)
	}
	return out
}
