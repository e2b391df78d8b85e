package verify

import (
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// TestAgentReceiptOptionalNulls pins spec v0.5.0 §7.1.1 as the Python SDK
// applies it (hash._strip_optional_nulls): every null object member goes,
// at any depth, array items stay, and only
// credentialSubject.chain.previous_receipt_hash keeps its null.
func TestAgentReceiptOptionalNulls(t *testing.T) {
	in := `{"a":null,"credentialSubject":{"chain":{"previous_receipt_hash":null,"terminal":null},"x":{"previous_receipt_hash":null,"y":[null,{"z":null}]}},"previous_receipt_hash":null,"proof":{"p":1}}`
	want := `{"credentialSubject":{"chain":{"previous_receipt_hash":null},"x":{"y":[null,{}]}}}`
	doc, err := canon.Parse([]byte(in), receiptParse)
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := agentReceiptSigningInput(&doc)
	if err != nil || string(got) != want {
		t.Fatalf("got %s, %v; want %s", got, err, want)
	}
	// Nothing to drop: the value comes back as it is, not copied.
	plain, _ := canon.Parse([]byte(`{"a":{"b":[1]}}`), receiptParse)
	if out := withoutOptionalNulls(&plain, 0); &out.Members[0] != &plain.Members[0] {
		t.Error("a value without nulls was copied")
	}
}
