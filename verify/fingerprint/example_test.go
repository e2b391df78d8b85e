package fingerprint_test

import (
	"fmt"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
)

// An Asqav tool_fingerprint: the first 32 hex of the SHA-256 of the
// canonical {"schema", "tool_name"} (a published vector).
func ExampleAsqavToolRecord() {
	fp, err := fingerprint.AsqavToolRecord(canon.Asqav(), []byte(`{"tool_name":"search","schema":{"args":{"q":"string"}}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(fp)
	// Output: e2ce58b024c0b821c9017a667e504390
}
