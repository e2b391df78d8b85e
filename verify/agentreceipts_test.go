package verify

import (
	"strings"
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
	_, got, _, err := agentReceiptSigningInput(&doc)
	if err != nil || string(got) != want {
		t.Fatalf("got %s, %v; want %s", got, err, want)
	}
	// Nothing to drop: the value comes back as it is, not copied.
	plain, _ := canon.Parse([]byte(`{"a":{"b":[1]}}`), receiptParse)
	if out := withoutOptionalNulls(&plain, 0); &out.Members[0] != &plain.Members[0] {
		t.Error("a value without nulls was copied")
	}
}

// TestAgentReceiptHashVectors reproduces the cross-SDK hash vectors of
// agent-receipts (ADR-0009), which exercise the null rule: the receipt
// hash, which a successor's previous_receipt_hash names, over the same
// bytes the signature covers.
func TestAgentReceiptHashVectors(t *testing.T) {
	raw := readFile(t, "../testdata/receipts/agentreceipts-upstream-interop/canonicalization_vectors.json")
	doc, err := canon.Parse(raw, receiptParse)
	if err != nil {
		t.Fatal(err)
	}
	vectors := doc.Get("receipt_hash_vectors")
	if vectors == nil || len(vectors.Items) == 0 {
		t.Fatal("no receipt_hash_vectors")
	}
	byName := map[string]string{}
	for i := range vectors.Items {
		byName[str(&vectors.Items[i], "name")] = str(&vectors.Items[i], "expectedHash")
	}
	n := 0
	for i := range vectors.Items {
		v := &vectors.Items[i]
		if v.Get("receipt") == nil {
			continue // an invariant over other files, not a hash
		}
		n++
		got, err := agentReceiptChainHash(v.Get("receipt"))
		want := str(v, "expectedHash")
		if other, ok := strings.CutPrefix(want, "SAME_AS_"); ok {
			want = byName[other]
		}
		if err != nil || "sha256:"+got != want {
			t.Errorf("%s: got sha256:%s, %v; want %s", str(v, "name"), got, err, want)
		}
	}
	if n < 7 {
		t.Fatalf("only %d hash vectors", n)
	}
}

// An integer beyond 2^53 is written verbatim, as obsigna's canonicalize
// writes it, only when RFC 8785 refuses it; every other refusal stands.
func TestAgentReceiptBigIntegerForm(t *testing.T) {
	for _, c := range []struct {
		in, want string
		dialect  canon.Dialect
		fails    bool
	}{
		{`{"n":9007199254740993,"f":1.0}`, `{"f":1,"n":9007199254740993}`, canon.AgentReceiptsPy(), false},
		{`{"n":-340282366920938463463374607431768211457}`, `{"n":-340282366920938463463374607431768211457}`, canon.AgentReceiptsPy(), false},
		{`{"n":9007199254740992,"f":1e21}`, `{"f":1e+21,"n":9007199254740992}`, canon.RFC8785(), false},
		{`{"n":9007199254740993,"s":"\ud800"}`, "", canon.AgentReceiptsPy(), true}, // a lone surrogate stays refused
		{`{"n":1e400}`, "", canon.RFC8785(), true},
	} {
		doc, err := canon.Parse([]byte(c.in), canon.ParseOptions{AllowLoneSurrogates: true})
		if err != nil {
			t.Fatal(err)
		}
		_, got, d, err := agentReceiptSigningInput(&doc)
		if (err != nil) != c.fails || d != c.dialect || (!c.fails && string(got) != c.want) {
			t.Errorf("%s: got %s in %s, %v; want %s in %s", c.in, got, d.Name(), err, c.want, c.dialect.Name())
		}
	}
}
