package canon_test

import (
	"fmt"

	"github.com/receiptverify/verify/verify/canon"
)

// The RFC 8785 canonical form: members sorted, numbers in ECMAScript form,
// no insignificant white space.
func ExampleDialect_Canonicalize() {
	out, err := canon.RFC8785().Canonicalize([]byte(`{"b": 2, "a": [1.0, 1e21, "\u00e9"]}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(string(out))
	// Output: {"a":[1,1e+21,"é"],"b":2}
}

// A dialect that forbids what the document holds says why.
func ExampleLookup() {
	d, err := canon.Lookup("rfc8785")
	if err != nil {
		panic(err)
	}
	_, err = d.Canonicalize([]byte(`{"a": 1, "a": 2}`))
	fmt.Println(err != nil)
	// Output: true
}
