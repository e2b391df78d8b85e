package keys_test

import (
	"encoding/hex"
	"fmt"

	"github.com/receiptverify/verify/verify/keys"
)

func ExampleParseDIDKey() {
	k, err := keys.ParseDIDKey("did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw")
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Alg, hex.EncodeToString(k.Public.Bytes()))
	// Output: Ed25519 d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a
}

func ExampleDirectory_ResolveAsqav() {
	snap, err := keys.Load("jwks.json", []byte(`{"keys":[
		{"kid":"k0","agent_id":"agt_0","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":"iojj3XQJ8ZX9UtstPLpdcspnCb8dlBIb83SIAbQPb1w="},
		{"kid":"k1","agent_id":"agt_1","issuer_id":"org","org_id":"org","alg":"Ed25519","public_key":"gTl3Dqh9F19Wo1Rmw0x+zMuNipG07jeiXfYPW4/Js5Q="}]}`))
	if err != nil {
		panic(err)
	}
	d, _ := keys.NewDirectory(snap)
	k, _ := d.ResolveAsqav("org", "agt_1", "", "org") // the agent bind wins over the loose kid match
	fmt.Println(k.KID, k.Source)
	// Output: k1 jwks.json[1]
}

// Load the key files of a run into one directory, as --keys does.
func ExampleLoadFiles() {
	d, err := keys.LoadFiles("../../testdata/demo/keys/jwks.json")
	if err != nil {
		panic(err)
	}
	k, _ := d.ByID(d.Keys()[0].KID)
	fmt.Println(d.Len() > 0, k.Source.File)
	// Output: true ../../testdata/demo/keys/jwks.json
}
