package stream_test

import (
	"context"
	"fmt"
	"time"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/stream"
)

// Verify an archive file, chains and nonces judged across the whole of it:
// the demo archive, with its planted anomalies.
func ExampleRun() {
	kd, err := keys.LoadFiles("../../testdata/demo/keys/jwks.json")
	if err != nil {
		panic(err)
	}
	v, err := verify.New(kd, verify.WithTime(time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)))
	if err != nil {
		panic(err)
	}
	src := stream.FileSource("../../testdata/demo/receipts.jsonl")
	first := ""
	sum, err := stream.Run(context.Background(), v, []stream.Source{src}, stream.Options{}, func(r *stream.Record) error {
		if r.Verdict == verify.Fail && first == "" {
			first = fmt.Sprintf("line %d: %s %v", r.Line, r.Verdict, r.Reasons)
		}
		return nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sum.Receipts, "receipts:", sum.Pass, "PASS,", sum.Fail, "FAIL")
	fmt.Println("first failure:", first)
	// Output:
	// 300 receipts: 279 PASS, 21 FAIL
	// first failure: line 34: FAIL [nonce_replay]
}
