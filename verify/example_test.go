package verify_test

import (
	"fmt"
	"os"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
)

// Verify one receipt against a key directory snapshot: here a real
// production ML-DSA-65 receipt from the Asqav conformance corpus.
func Example() {
	dir := "../testdata/receipts/asqav-06-mldsa65-payload-prod/"
	jwks, _ := os.ReadFile(dir + "jwks.json")
	snap, err := keys.Load("jwks.json", jwks)
	if err != nil {
		fmt.Println(err)
		return
	}
	kd, _ := keys.NewDirectory(snap)
	v, _ := verify.New(kd, verify.WithTime(time.Date(2026, 7, 1, 0, 0, 0, 0, time.UTC)))

	raw, _ := os.ReadFile(dir + "receipt.json")
	res, _ := v.Verify(raw)
	fmt.Println(res.Format, res.Verdict)
	fmt.Println("signature:", res.Axes.Of(verify.AxisSignature).Status, res.Axes.Of(verify.AxisSignature).Note)
	fmt.Println("expiry:", res.Axes.Of(verify.AxisExpiry).Status, "(advisory)")
	// Output:
	// asqav-native PASS
	// signature: PASS ML-DSA-65; not signed: anchors
	// expiry: FAIL (advisory)
}
