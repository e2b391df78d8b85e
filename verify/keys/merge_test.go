package keys_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify/keys"
)

// asqavEntry is an Asqav JWKS entry for kid with the Ed25519 key of seed
// b; extra members go before public_key.
func asqavEntry(kid string, b byte, extra string) string {
	return fmt.Sprintf(`{"kid":%q,"alg":"Ed25519",%s"public_key":%s}`, kid, extra, jsonB64(ed25519Pub(b)))
}

func loadText(t *testing.T, name, text string) *keys.Snapshot {
	t.Helper()
	s, err := keys.Load(name, []byte(text))
	if err != nil {
		t.Fatalf("Load(%s): %v", name, err)
	}
	return s
}

// TestDuplicateKIDCombines: a kid listed active in one place and revoked in
// another is revoked, whichever comes first, across files and within one;
// a revocation list without key material combines the same way. A receipt
// signed after the revocation never passes the status check.
func TestDuplicateKIDCombines(t *testing.T) {
	t.Parallel()
	revokedAt := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	signedAt := revokedAt.Add(time.Hour)
	active := asqavEntry("k", 1, `"agent_id":"a1",`)
	cases := map[string]string{
		"revoked_at":  asqavEntry("k", 1, `"revoked_at":"2026-05-01T00:00:00Z",`),
		"status":      asqavEntry("k", 1, `"status":"revoked","org_id":"o1",`),
		"no material": `{"kid":"k","status":"revoked","revoked_at":"2026-05-01T00:00:00Z"}`,
		"later too":   asqavEntry("k", 1, `"revoked_at":"2026-06-01T00:00:00Z",`) + "," + asqavEntry("k", 1, `"revoked_at":"2026-05-01T00:00:00Z",`),
	}
	for name, rev := range cases {
		orders := map[string][]*keys.Snapshot{
			"files active first":      {loadText(t, "a.json", `{"keys":[`+active+`]}`), loadText(t, "r.json", `{"keys":[`+rev+`]}`)},
			"files revoked first":     {loadText(t, "r.json", `{"keys":[`+rev+`]}`), loadText(t, "a.json", `{"keys":[`+active+`]}`)},
			"one file, active first":  {loadText(t, "ar.json", `{"keys":[`+active+`,`+rev+`]}`)},
			"one file, revoked first": {loadText(t, "ra.json", `{"keys":[`+rev+`,`+active+`]}`)},
		}
		for order, snaps := range orders {
			t.Run(name+"/"+order, func(t *testing.T) {
				d := dir(t, snaps...)
				k, err := d.ResolveAsqav("k", "", "", "")
				if err != nil {
					t.Fatal(err)
				}
				if err := k.CheckStatus(signedAt, signedAt); !errors.Is(err, keys.ErrKeyRevoked) {
					t.Fatalf("signed after the revocation: %v (status %s, revoked_at %v)", err, k.Status, k.RevokedAt)
				}
				if k.Public == nil || d.Len() != 1 {
					t.Fatalf("key material lost or key not merged: %v, %d keys", k.Public, d.Len())
				}
				if k.AgentID != "a1" {
					t.Errorf("agent_id of the active entry lost: %q", k.AgentID)
				}
				// The combination is reported, naming the entry that decides.
				c := d.Combined()
				if len(c) != 1 || c[0].KID != "k" || c[0].Decides != k.Source {
					t.Fatalf("combined: %+v, key from %s", c, k.Source)
				}
				for _, s := range snaps {
					for _, e := range s.Keys {
						if e.Source == k.Source && e.Status.Usable() && !e.RevokedAt.Equal(revokedAt) {
							t.Errorf("the key is named after %s, which does not revoke it", e.Source)
						}
					}
				}
			})
		}
	}
}

// TestDuplicateKIDConflict: two entries giving one kid different keys or
// ids are a load error naming both, in either order.
func TestDuplicateKIDConflict(t *testing.T) {
	t.Parallel()
	cases := map[string][2]string{
		"public key": {asqavEntry("k", 1, ""), asqavEntry("k", 2, "")},
		"agent_id":   {asqavEntry("k", 1, `"agent_id":"a1",`), asqavEntry("k", 1, `"agent_id":"a2",`)},
		"issuer_id":  {asqavEntry("k", 1, `"issuer_id":"i1",`), asqavEntry("k", 1, `"issuer_id":"i2",`)},
		"hex map":    {`{"k":"` + fmt.Sprintf("%x", ed25519Pub(1)) + `"}`, `{"k":"` + fmt.Sprintf("%x", ed25519Pub(2)) + `"}`},
	}
	for name, c := range cases {
		wrap := func(e string) string {
			if strings.HasPrefix(e, `{"kid"`) {
				return `{"keys":[` + e + `]}`
			}
			return e
		}
		for _, rev := range []bool{false, true} {
			first, second := loadText(t, "first.json", wrap(c[0])), loadText(t, "second.json", wrap(c[1]))
			if rev {
				first, second = second, first
			}
			_, err := keys.NewDirectory(first, second)
			if !errors.Is(err, keys.ErrConflict) {
				t.Errorf("%s (reversed %v): %v", name, rev, err)
				continue
			}
			if msg := err.Error(); !strings.Contains(msg, "first.json[0]") || !strings.Contains(msg, "second.json[0]") {
				t.Errorf("%s: the error should name both entries: %s", name, msg)
			}
		}
		if strings.HasPrefix(c[0], `{"kid"`) {
			if _, err := keys.NewDirectory(loadText(t, "one.json", `{"keys":[`+c[0]+`,`+c[1]+`]}`)); !errors.Is(err, keys.ErrConflict) ||
				!strings.Contains(err.Error(), "one.json[0] and one.json[1]") {
				t.Errorf("%s in one file: %v", name, err)
			}
		}
	}
}

// TestDuplicateKIDAgrees: entries that agree, or where one leaves an id
// out, are one key and no combination to report.
func TestDuplicateKIDAgrees(t *testing.T) {
	t.Parallel()
	d := dir(t, loadText(t, "a.json", `{"keys":[`+asqavEntry("k", 1, `"agent_id":"a1",`)+`,`+asqavEntry("k", 1, `"org_id":"o1",`)+`]}`))
	k, err := d.ByID("k")
	if err != nil || d.Len() != 1 || len(d.Combined()) != 0 || k.AgentID != "a1" || k.OrgID != "o1" || k.Source.Index != 0 {
		t.Fatalf("%v %d %v %+v", err, d.Len(), d.Combined(), k)
	}
	// The org bind of the second entry resolves through the merged key.
	if k2, err := d.ResolveAsqav("", "a1", "", "o1"); err != nil || k2 != k {
		t.Fatalf("agent bind: %v %v", k2, err)
	}
}
