package verify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/keys"
)

// TestDSSEKeyInGoodStanding: an envelope signed by a revoked key and by an
// active one rests on the active one, in either order of the signatures:
// the receipt PASSes and names the active key. With the revoked signer
// alone it FAILs key_revoked.
func TestDSSEKeyInGoodStanding(t *testing.T) {
	t.Parallel()
	b64 := base64.RawURLEncoding.EncodeToString
	priv := map[string]*ecdsa.PrivateKey{}
	var entries []string
	for _, k := range []struct{ kid, extra string }{
		{"old", `"status":"revoked","revoked_at":"2026-01-01T00:00:00Z"`},
		{"new", `"status":"active"`},
	} {
		d := sha256.Sum256([]byte("dsse standing test key " + k.kid))
		p, err := ecdsa.ParseRawPrivateKey(elliptic.P256(), d[:])
		if err != nil {
			t.Fatal(err)
		}
		priv[k.kid] = p
		pt, _ := p.PublicKey.Bytes()
		entries = append(entries, `{"kty":"EC","crv":"P-256","kid":"`+k.kid+`","x":"`+b64(pt[1:33])+`","y":"`+b64(pt[33:])+`",`+k.extra+`}`)
	}
	set, err := keys.Load("k.json", []byte(`{"keys":[`+entries[0]+`,`+entries[1]+`]}`))
	if err != nil {
		t.Fatal(err)
	}
	dir, err := keys.NewDirectory(set)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	body := []byte("hello")
	h := sha256.Sum256(dsse.PAE("text/plain", body))
	envelope := func(kids ...string) []byte {
		type sig struct {
			KeyID string `json:"keyid"`
			Sig   string `json:"sig"`
		}
		var sigs []sig
		for _, kid := range kids {
			der, err := ecdsa.SignASN1(nil, priv[kid], h[:])
			if err != nil {
				t.Fatal(err)
			}
			sigs = append(sigs, sig{kid, base64.StdEncoding.EncodeToString(der)})
		}
		b, _ := json.Marshal(map[string]any{"payloadType": "text/plain", "payload": base64.StdEncoding.EncodeToString(body), "signatures": sigs})
		return b
	}
	for _, order := range [][]string{{"old", "new"}, {"new", "old"}} {
		res, err := v.Verify(envelope(order...))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != Pass || res.Fields.KeyID != "new" || res.Axes.Of(AxisKeyStatus).Status != StatusPass {
			t.Errorf("signed by %v: %s, key %q, key status %+v", order, res.Verdict, res.Fields.KeyID, res.Axes.Of(AxisKeyStatus))
		}
	}
	res, err := v.Verify(envelope("old"))
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != Fail || res.Fields.KeyID != "old" || res.Axes.Of(AxisKeyStatus).Reason != ReasonKeyRevoked {
		t.Errorf("signed by the revoked key alone: %s, key %q, key status %+v", res.Verdict, res.Fields.KeyID, res.Axes.Of(AxisKeyStatus))
	}
}
