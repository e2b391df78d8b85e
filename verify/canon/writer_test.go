package canon

import (
	"cmp"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
)

// TestNameKeyOrder checks that sorting by nameKey never disagrees with a
// dialect's own comparison, on names that share prefixes, end early, hold
// 0 bytes or leave ASCII anywhere in their first eight bytes.
func TestNameKeyOrder(t *testing.T) {
	t.Parallel()
	alphabet := []string{"a", "b", "_", "\x00", "\x7f", "é", "\uffff", "😀", "\xed\xa0\x80", "\xff"}
	r := rand.New(rand.NewPCG(3, 4))
	name := func() string {
		var s string
		for range r.IntN(12) {
			s += alphabet[r.IntN(len(alphabet))]
		}
		return s
	}
	for _, order := range []func(a, b string) int{compareUTF16, compareCodePoints} {
		e := encoder{w: &writer{order: order}}
		for range 300000 {
			a, b := name(), name()
			if r.IntN(3) == 0 {
				b = a[:r.IntN(len(a)+1)] + name()
			}
			got := e.compare(sortEntry{nameKey(a), &Member{Name: a}}, sortEntry{nameKey(b), &Member{Name: b}})
			if want := order(a, b); cmp.Compare(got, 0) != cmp.Compare(want, 0) {
				t.Fatalf("compare(%q, %q) = %d, the dialect's order says %d", a, b, got, want)
			}
		}
	}
}

// TestSortByKey checks that when the insertion sort by key decides an
// order, it is the one the dialect's comparison sort gives, on objects
// with shared prefixes, equal names and names without keys.
func TestSortByKey(t *testing.T) {
	t.Parallel()
	names := []string{"a", "ab", "abcdefgh", "abcdefghi", "abcdefghj", "b", "é", "😀", "\uffff", "x\x00", "x", "payload", "payload_digest"}
	r := rand.New(rand.NewPCG(5, 6))
	decided := 0
	for _, order := range []func(a, b string) int{compareUTF16, compareCodePoints} {
		e := encoder{w: &writer{order: order}}
		for range 20000 {
			var es []sortEntry
			for range r.IntN(smallSort + 4) {
				m := &Member{Name: names[r.IntN(len(names))]}
				if r.IntN(2) == 0 {
					m.Name += names[r.IntN(len(names))]
				}
				es = append(es, sortEntry{nameKey(m.Name), m})
			}
			want := slices.Clone(es)
			slices.SortFunc(want, e.compare)
			got := slices.Clone(es)
			if !sortByKey(got) {
				continue
			}
			decided++
			for i := range got {
				if got[i].m != want[i].m {
					t.Fatalf("sortByKey put %q at %d, the dialect's sort puts %q there", got[i].m.Name, i, want[i].m.Name)
				}
			}
		}
	}
	if decided < 1000 {
		t.Fatalf("only %d objects were sorted by key; the test needs more", decided)
	}
}

// TestAppendMarked checks, in every dialect, on the RFC 8785 and Asqav()
// parity inputs, the conformance receipts and nested shapes with nulls and
// spaces to drop or trim, that marking any value inside a document leaves
// the document's bytes as Append writes them and finds exactly the bytes
// Append writes for the marked value alone.
func TestAppendMarked(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../testdata/jcs/input/*.json")
	parity, _ := filepath.Glob("../../testdata/asqav/doors-parity/*-input.json")
	receipts, _ := filepath.Glob("../../testdata/receipts/*/receipt.json")
	var inputs [][]byte
	for _, f := range slices.Concat(files, parity, receipts) {
		inputs = append(inputs, readFile(t, f))
	}
	for _, s := range []string{`{"payload":{"b":[1,null,{"x":" y "}],"context":{"args":{"z":null,"a":"é"},"tool":"t"},"a":null}}`,
		`[[],{},[{}],null,"",0]`, `{"a":{"a":{"a":{}}},"😀":[1.5e3,-0]}`} {
		inputs = append(inputs, []byte(s))
	}
	if len(inputs) < 10 {
		t.Fatalf("only %d inputs", len(inputs))
	}
	marked := 0
	for _, d := range distinctDialects() {
		for _, in := range inputs {
			marked += checkMarked(t, d, in)
		}
	}
	if marked < 5000 {
		t.Fatalf("%d values marked", marked)
	}
}

// FuzzAppendMarked runs TestAppendMarked's check on any input.
func FuzzAppendMarked(f *testing.F) {
	seedFuzz(f)
	dialects := distinctDialects()
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range dialects {
			checkMarked(t, d, data)
		}
	})
}

func distinctDialects() []Dialect {
	var ds []Dialect
	for _, name := range Names() {
		if d, _ := Lookup(name); !slices.Contains(ds, d) {
			ds = append(ds, d)
		}
	}
	return ds
}

// checkMarked marks each value of in, parsed by d, in turn: the document's
// bytes must be Append's and the marked bytes those Append writes for the
// value alone. It returns how many values were found and compared.
func checkMarked(t *testing.T, d Dialect, in []byte) (marked int) {
	doc, err := d.Parse(in)
	if err != nil {
		return 0
	}
	whole, wholeErr := d.Append(nil, &doc)
	walkValues(&doc, func(sub *Value) {
		out, start, end, err := d.AppendMarked(nil, &doc, sub)
		if (err != nil) != (wholeErr != nil) || err == nil && string(out) != string(whole) {
			t.Fatalf("%s %q: marking changed the document: %q, %v", d.Name(), in, out, err)
		}
		alone, aloneErr := d.Append(nil, sub)
		switch {
		case err != nil:
		case end == 0:
			if !(d.p.w.dropNulls && sub.Kind == Null) {
				t.Fatalf("%s %q: %q not marked", d.Name(), in, alone)
			}
		case aloneErr != nil || string(out[start:end]) != string(alone):
			t.Fatalf("%s %q: marked %q, alone %q (%v)", d.Name(), in, out[start:end], alone, aloneErr)
		default:
			marked++
		}
	})
	return marked
}

// walkValues calls visit on v and every value inside it.
func walkValues(v *Value, visit func(*Value)) {
	visit(v)
	for i := range v.Members {
		walkValues(&v.Members[i].Value, visit)
	}
	for i := range v.Items {
		walkValues(&v.Items[i], visit)
	}
}
