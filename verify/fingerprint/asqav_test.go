package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// loadVectors parses a vector file with the package's own parser, so that
// every input keeps its literal bytes.
func loadVectors(t *testing.T, path string) canon.Value {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	v, err := canon.Parse(raw, canon.ParseOptions{})
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return v
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// TestAsqavFingerprintVectors checks every canonical text and SHA-256 in
// fingerprint-vectors.json under RFC 8785 and the current Asqav dialect
// (which agree on these inputs), and the action fingerprint where the input
// is an {action_type, context} pair.
func TestAsqavFingerprintVectors(t *testing.T) {
	file := loadVectors(t, "../../testdata/asqav/fingerprint-vectors.json")
	vectors := file.Get("vectors")
	if vectors == nil || len(vectors.Items) == 0 {
		t.Fatal("no vectors")
	}
	for i := range vectors.Items {
		vec := &vectors.Items[i]
		name := vec.Get("name").Text
		t.Run(name, func(t *testing.T) {
			input, canonical, sum := vec.Get("input"), vec.Get("canonical"), vec.Get("sha256")
			if input == nil || canonical == nil || sum == nil {
				t.Fatal("vector lacks input, canonical or sha256")
			}
			if got := sha256Hex([]byte(canonical.Text)); got != sum.Text {
				t.Fatalf("vector is inconsistent: sha256(canonical) = %s, file says %s", got, sum.Text)
			}
			for _, d := range []canon.Dialect{canon.RFC8785(), canon.Asqav()} {
				got, err := d.Append(nil, input)
				if err != nil {
					t.Fatalf("%s: %v", d.Name(), err)
				}
				if string(got) != canonical.Text {
					t.Fatalf("%s:\n got  %s\n want %s", d.Name(), got, canonical.Text)
				}
			}
			if at := input.Get("action_type"); at != nil && len(input.Members) == 2 && input.Get("context") != nil {
				fp, err := AsqavAction(canon.RFC8785(), at, input.Get("context"))
				if err != nil || fp != "sha256:"+sum.Text {
					t.Fatalf("action fingerprint %s, %v; want sha256:%s", fp, err, sum.Text)
				}
			}
		})
	}
}

// TestAsqavExtraVectors covers the astral key order, the safe-integer
// boundary and the tool_fingerprint examples.
func TestAsqavExtraVectors(t *testing.T) {
	file := loadVectors(t, "../../testdata/asqav/extra-fingerprints.json")
	for _, vec := range file.Get("action_and_jcs").Items {
		name := vec.Get("name").Text
		t.Run(name, func(t *testing.T) {
			var got []byte
			var err error
			switch {
			case vec.Get("raw") != nil:
				got, err = canon.RFC8785().Canonicalize([]byte(vec.Get("raw").Text))
			case vec.Get("input") != nil:
				got, err = canon.RFC8785().Append(nil, vec.Get("input"))
			case vec.Get("canonical_wrong") != nil:
				wrong := vec.Get("canonical_wrong").Text
				if sha256Hex([]byte(wrong)) != vec.Get("sha256_wrong").Text {
					t.Fatal("vector is inconsistent")
				}
				got, err = canon.RFC8785().Canonicalize([]byte(wrong))
				if err != nil || string(got) == wrong {
					t.Fatalf("code-point order must not survive canonicalization: got %s, %v", got, err)
				}
				return
			default:
				t.Fatal("vector has no input")
			}
			if exp := vec.Get("expect"); exp != nil {
				if err == nil {
					t.Fatalf("want rejection (%s), got %s", exp.Text, got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := vec.Get("canonical").Text; string(got) != want {
				t.Fatalf("got %s, want %s", got, want)
			}
			if want := vec.Get("sha256").Text; sha256Hex(got) != want {
				t.Fatalf("sha256 %s, want %s", sha256Hex(got), want)
			}
		})
	}
	for i, vec := range file.Get("tool_fingerprints").Items {
		fp, err := AsqavTool(canon.RFC8785(), vec.Get("tool_name").Text, vec.Get("schema"))
		if want := vec.Get("tool_fingerprint").Text; err != nil || fp != want {
			t.Errorf("tool_fingerprints[%d]: got %s, %v; want %s", i, fp, err, want)
		}
		if c := vec.Get("canonical"); c != nil {
			obj := canon.ObjectValue(
				canon.Member{Name: "tool_name", Value: *vec.Get("tool_name")},
				canon.Member{Name: "schema", Value: orEmptyObject(vec.Get("schema"))})
			got, _ := canon.RFC8785().Append(nil, &obj)
			if string(got) != c.Text {
				t.Errorf("tool_fingerprints[%d]: canonical %s, want %s", i, got, c.Text)
			}
		}
	}
}

func TestAsqavRecords(t *testing.T) {
	cases := []struct {
		fn   func(canon.Dialect, []byte) (string, error)
		in   string
		want string // "" means an error is expected
	}{
		{AsqavActionRecord, `{"action_type":"read:data","context":{}}`, "sha256:991033e23a3e0939c258e10f2f8f88183d9bcdb08de62ef02446e11e0819c671"},
		{AsqavActionRecord, `{"action_type":"read:data"}`, "sha256:991033e23a3e0939c258e10f2f8f88183d9bcdb08de62ef02446e11e0819c671"},
		{AsqavActionRecord, `{"action_type":"read:data","context":null}`, "sha256:991033e23a3e0939c258e10f2f8f88183d9bcdb08de62ef02446e11e0819c671"},
		{AsqavActionRecord, `{"context":{}}`, ""},
		{AsqavActionRecord, `{"action_type":7}`, ""},
		{AsqavActionRecord, `[1]`, ""},
		{AsqavToolRecord, `{"tool_name":"search","schema":{"args":{"q":"string"}}}`, "e2ce58b024c0b821c9017a667e504390"},
		{AsqavToolRecord, `{"tool_name":"search"}`, "672e5f5582dbd9b32765143420ca7548"},
		{AsqavToolRecord, `{"tool_name":"search","schema":"x"}`, ""},
		{AsqavToolRecord, `{"schema":{}}`, ""},
	}
	for _, c := range cases {
		got, err := c.fn(canon.RFC8785(), []byte(c.in))
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: got %s, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.want)
		}
	}
}

// TestAsqavContextComposition: the action fingerprint written around the
// canonical context equals the hash of canonicalizing the whole
// {"action_type", "context"} object, under every Asqav-family dialect.
func TestAsqavContextComposition(t *testing.T) {
	docs := []string{
		`{"action_type":"read:data","context":{}}`,
		`{"action_type":"a","context":{"😀":1,"＠":[1.0,500.0,1e-5,"é\u2028"],"z":{"b":null,"a":true}}}`,
		`{"action_type":7,"context":{"n":9007199254740992}}`,
		`{"action_type":{"x":"y"},"context":null}`,
		`{"action_type":"x"}`,
	}
	file := loadVectors(t, "../../testdata/asqav/fingerprint-vectors.json")
	for _, vec := range file.Get("vectors").Items {
		if in := vec.Get("input"); in.Get("action_type") != nil {
			b, _ := canon.RFC8785().Append(nil, in)
			docs = append(docs, string(b))
		}
	}
	for _, d := range []canon.Dialect{canon.RFC8785(), canon.Asqav(), canon.AsqavCodePoint()} {
		for _, doc := range docs {
			v, err := canon.Parse([]byte(doc), canon.ParseOptions{})
			if err != nil {
				t.Fatal(err)
			}
			at, ctx := v.Get("action_type"), v.Get("context")
			whole := canon.ObjectValue(
				canon.Member{Name: "action_type", Value: *at},
				canon.Member{Name: "context", Value: orEmptyObject(ctx)})
			b, err := d.Append(nil, &whole)
			if err != nil {
				t.Fatalf("%s: %s: %v", d.Name(), doc, err)
			}
			want := "sha256:" + sha256Hex(b)
			c, err := CanonicalContext(d, ctx)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := c.Action(at); err != nil || got != want {
				t.Errorf("%s: %s: composed %s, %v; whole object %s", d.Name(), doc, got, err, want)
			}
		}
	}
}

// TestAsqavPayloadDigest recomputes the payload_digest of a real
// production receipt (asqav-06, signed by the Asqav cloud signer) from its
// context, and of a missing context (the empty object).
func TestAsqavPayloadDigest(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/receipts/asqav-06-mldsa65-payload-prod/receipt.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := canon.Parse(raw, canon.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p := doc.Get("payload")
	got, err := AsqavPayloadDigest(canon.Asqav(), p.Get("context"))
	if err != nil {
		t.Fatal(err)
	}
	if want := (PayloadDigest{Hash: "b0e3686703eb8c50ee5575ddacfe2277169c24bec8a59d118dca612b08cd061d", Size: 63}); got != want {
		t.Errorf("asqav-06: %+v, want %+v", got, want)
	}
	got, err = AsqavPayloadDigest(canon.Asqav(), nil)
	if err != nil || got != (PayloadDigest{Hash: "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a", Size: 2}) {
		t.Errorf("no context: %+v, %v", got, err)
	}
}
