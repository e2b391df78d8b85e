package fingerprint

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// The vectors come from an independent JavaScript implementation of the
// contract; regenerating them needs Node 20 or later.
//go:generate sh -c "node ../../testdata/overturn/reference.js > ../../testdata/overturn/vectors.jsonl"

const overturnVectors = "../../testdata/overturn/vectors.jsonl"

type overturnVector struct {
	Case        string `json:"case"`
	Record      string `json:"record"`
	Canonical   string `json:"canonical"`
	Fingerprint string `json:"fingerprint"`
}

func readOverturnVectors(t testing.TB) []overturnVector {
	t.Helper()
	f, err := os.Open(overturnVectors)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var vs []overturnVector
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var v overturnVector
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s:%d: %v", overturnVectors, line, err)
		}
		if v.Case == "" || v.Record == "" || v.Canonical == "" || len(v.Fingerprint) != 64 {
			t.Fatalf("%s:%d: incomplete vector %+v", overturnVectors, line, v)
		}
		vs = append(vs, v)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return vs
}

// TestOverturnVectors walks the reference vectors: each record's selected,
// canonical args and its fingerprint must match byte for byte.
func TestOverturnVectors(t *testing.T) {
	t.Parallel()
	vs := readOverturnVectors(t)
	if len(vs) < 40 {
		t.Fatalf("%d vectors, want at least 40", len(vs))
	}
	for _, v := range vs {
		t.Run(v.Case, func(t *testing.T) {
			t.Parallel()
			_, _, args, err := readOverturnRecord([]byte(v.Record))
			if err != nil {
				t.Fatalf("record: %v", err)
			}
			got, err := canon.Overturn().Append(nil, &args)
			if err != nil || string(got) != v.Canonical {
				t.Errorf("canonical: got %q, %v; want %q", got, err, v.Canonical)
			}
			fp, err := OverturnRecord([]byte(v.Record))
			if err != nil || fp != v.Fingerprint {
				t.Errorf("fingerprint: got %s, %v; want %s", fp, err, v.Fingerprint)
			}
		})
	}
}

// TestOverturnContractExamples recomputes the contract's three examples by
// hand (sha256 of kind, name and the canonical text the contract prints)
// and through the API.
func TestOverturnContractExamples(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, args, canonical string
		opts                  OverturnOptions
		want                  string // from testdata/overturn/vectors.jsonl
	}{
		{"signup", `{ "email": " a@b.c ", "plan": "pro" }`, `{"email":"a@b.c","plan":"pro"}`, OverturnOptions{},
			"9800c1694ac7128f2217ef2adac464a09a425b469f8e56e2127b5c1cfba7c563"},
		{"update_ticket", `{"ticketId":"T-1","priority":"P0","requestId":"x"}`, `{"ticketId":"T-1"}`,
			OverturnOptions{MatchOn: []string{"ticketId"}, HasMatchOn: true},
			"21d57f815cd7b44728d02af73ed4a693049a8726b7befb535425ab2e8f856f7f"},
		{"calc", `{"a":1.0,"b":-0,"c":null}`, `{"a":1,"b":0}`, OverturnOptions{},
			"d46e7b0fde88223921aa5c8348b9aa5c42fb60a1d6d015c45995cfa16092aca8"},
	}
	for _, c := range cases {
		sum := sha256.Sum256([]byte("tool_call\n" + c.name + "\n" + c.canonical))
		byHand := hex.EncodeToString(sum[:])
		args, err := canon.Overturn().Parse([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Overturn(OverturnToolCall, c.name, OverturnSelect(&args, c.opts))
		if err != nil || got != byHand {
			t.Errorf("%s: got %s, %v; want %s", c.name, got, err, byHand)
		}
		if got != c.want {
			t.Errorf("%s: got %s, reference vector %s", c.name, got, c.want)
		}
	}
}

func TestOverturnSelect(t *testing.T) {
	t.Parallel()
	match := func(k ...string) OverturnOptions { return OverturnOptions{MatchOn: k, HasMatchOn: true} }
	ignore := func(k ...string) OverturnOptions { return OverturnOptions{IgnoreArgs: k, HasIgnoreArgs: true} }
	both := func(m, i []string) OverturnOptions {
		return OverturnOptions{MatchOn: m, HasMatchOn: true, IgnoreArgs: i, HasIgnoreArgs: true}
	}
	cases := []struct {
		name, args string
		opts       OverturnOptions
		want       string
	}{
		{"no declaration", `{"a":1,"b":null}`, OverturnOptions{}, `{"a":1}`},
		{"matchOn", `{"ticketId":"T-1","priority":"P0","requestId":"x"}`, match("ticketId"), `{"ticketId":"T-1"}`},
		{"matchOn missing keys omitted", `{"a":1}`, match("a", "zz"), `{"a":1}`},
		{"matchOn all missing", `{"a":1}`, match("zz"), `{}`},
		{"matchOn empty keeps nothing", `{"a":1}`, match(), `{}`},
		{"matchOn nil but declared", `{"a":1}`, OverturnOptions{HasMatchOn: true}, `{}`},
		{"matchOn undeclared list ignored", `{"a":1}`, OverturnOptions{MatchOn: []string{"b"}}, `{"a":1}`},
		{"matchOn wins over ignoreArgs", `{"a":1,"b":2,"c":3}`, both([]string{"a", "b"}, []string{"a"}), `{"a":1,"b":2}`},
		{"empty matchOn wins too", `{"a":1}`, both(nil, []string{"b"}), `{}`},
		{"ignoreArgs", `{"a":1,"b":2,"c":{"a":1}}`, ignore("a", "nope"), `{"b":2,"c":{"a":1}}`},
		{"ignoreArgs empty", `{"a":1}`, ignore(), `{"a":1}`},
		{"top level only", `{"o":{"a":1},"a":2}`, match("o"), `{"o":{"a":1}}`},
		{"matchOn repeated key", `{"a":1,"b":2}`, match("a", "a"), `{"a":1}`},
		{"string passes", `" s "`, match("s"), `"s"`},
		{"number passes", `1.50`, ignore("a"), `1.5`},
		{"array passes", `[{"a":1,"b":2}]`, match("a"), `[{"a":1,"b":2}]`},
		{"null passes", `null`, match("a"), `null`},
		{"bool passes", `true`, match("a"), `true`},
	}
	for _, c := range cases {
		args, err := canon.Overturn().Parse([]byte(c.args))
		if err != nil {
			t.Fatal(err)
		}
		before, _ := canon.Overturn().Append(nil, &args)
		sel := OverturnSelect(&args, c.opts)
		got, err := canon.Overturn().Append(nil, &sel)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.name, got, err, c.want)
		}
		if after, _ := canon.Overturn().Append(nil, &args); !bytes.Equal(before, after) {
			t.Errorf("%s: select modified its input", c.name)
		}
	}
	if got := OverturnSelect(nil, OverturnOptions{}); got.Kind != canon.Null {
		t.Errorf("nil args: got %v, want null", got.Kind)
	}
}

func TestOverturnRecordErrors(t *testing.T) {
	t.Parallel()
	cases := []struct{ record, field string }{
		{`{"args":{}}`, "name"},
		{`{"name":1,"args":{}}`, "name"},
		{`{"name":null,"args":{}}`, "name"},
		{`{"name":"t"}`, "args"},
		{`{"name":"t","args":{},"kind":1}`, "kind"},
		{`{"name":"t","args":{},"matchOn":"a"}`, "matchOn"},
		{`{"name":"t","args":{},"matchOn":{"a":1}}`, "matchOn"},
		{`{"name":"t","args":{},"matchOn":["a",1]}`, "matchOn"},
		{`{"name":"t","args":{},"matchOn":[null]}`, "matchOn"},
		{`{"name":"t","args":{},"ignoreArgs":true}`, "ignoreArgs"},
		{`{"name":"t","args":{},"ignoreArgs":["a",["b"]]}`, "ignoreArgs"},
		{`{"name":"t","args":{},"matchOn":["a"],"ignoreArgs":[1]}`, "ignoreArgs"},
	}
	for _, c := range cases {
		_, err := OverturnRecord([]byte(c.record))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: got %v, want a FieldError on %q", c.record, err, c.field)
		}
	}
	for _, bad := range []string{`[]`, `"x"`, `{"name":"t","args":{}`, `{"name":"t","args":` + strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + `}`} {
		if _, err := OverturnRecord([]byte(bad)); err == nil {
			t.Errorf("%.40s: accepted", bad)
		}
	}
}

// TestOverturnNameKind checks that kind and name are hashed as given.
func TestOverturnNameKind(t *testing.T) {
	t.Parallel()
	args := canon.EmptyObject()
	hash := func(s string) string { sum := sha256.Sum256([]byte(s)); return hex.EncodeToString(sum[:]) }
	for _, c := range []struct{ kind, name, input string }{
		{"tool_call", " send ", "tool_call\n send \n{}"},
		{"resource_read", "files/read", "resource_read\nfiles/read\n{}"},
		{"tool_call", "bad\xed\xa0\x80x", "tool_call\nbad\uFFFDx\n{}"},
		{"tool_call", "\xed\xb0\x80\xed\xb0\x80", "tool_call\n\uFFFD\uFFFD\n{}"},
	} {
		got, err := Overturn(c.kind, c.name, args)
		if err != nil || got != hash(c.input) {
			t.Errorf("%q %q: got %s, %v; want %s", c.kind, c.name, got, err, hash(c.input))
		}
	}
}

func ExampleOverturnRecord() {
	fp, err := OverturnRecord([]byte(`{
		"name": "update_ticket",
		"args": {"ticketId": " T-1 ", "priority": "P0", "requestId": "x"},
		"matchOn": ["ticketId"]
	}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(fp)
	// Output:
	// 21d57f815cd7b44728d02af73ed4a693049a8726b7befb535425ab2e8f856f7f
}

func BenchmarkOverturn(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"name":"create_invoice","matchOn":["customer","lines","currency","due","meta"],"args":{`)
	sb.WriteString(`"customer":{"id":"cus_8f2k1","email":"  billing@example.com ","name":"Exämple GmbH"},`)
	sb.WriteString(`"currency":"EUR","due":"2026-04-01T00:00:00.000Z","requestId":"req_1","lines":[`)
	for i := 0; i < 8; i++ {
		if i > 0 {
			sb.WriteByte(',')
		}
		fmt.Fprintf(&sb, `{"sku":"SKU-%04d","qty":%d,"unit":%d.50,"tax":0.19,"note":null,"tags":["a","b"]}`, i, i+1, 10*i)
	}
	sb.WriteString(`],"meta":{"source":"agent","trace":null,"z":1e21,"y":-0,"x":"\u3000pad\u3000"}}}`)
	record := []byte(sb.String())
	if n := len(record); n < 900 || n > 1200 {
		b.Fatalf("document is %d bytes, want about 1 KiB", n)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(record)))
	for b.Loop() {
		if _, err := OverturnRecord(record); err != nil {
			b.Fatal(err)
		}
	}
}
