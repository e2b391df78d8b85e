package receiptgen_test

import (
	"fmt"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
)

func ExampleGenerate() {
	sink := receiptgen.NewMemSink()
	truth, err := receiptgen.Generate(receiptgen.Config{Seed: 1, N: 200, Rate: 0.08, Algs: receiptgen.Ed25519Only()}, sink)
	if err != nil {
		panic(err)
	}
	fmt.Println(truth.Lines, "lines,", truth.Removed, "removed,", len(truth.Anomalies()), "anomalies")
	for _, k := range receiptgen.Kinds() {
		fmt.Println(k, truth.Counts[k])
	}
	fmt.Println(sink.Names())
	// Output:
	// 200 lines, 2 removed, 16 anomalies
	// tampered_payload 2
	// tampered_signature 2
	// revoked_key 2
	// chain_break 2
	// fork 2
	// absent 2
	// replayed_nonce 2
	// schema_drift 2
	// [keys/jwks.json receipts.jsonl schemas/billing.json schemas/crm.json schemas/files.json schemas/helpdesk.json truth.jsonl]
}
