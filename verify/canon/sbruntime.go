package canon

// SBRuntime is the form sb-runtime (ScopeBlind, crates/sb-receipt
// jcs_canonical) signs and chains its receipts' payloads in: member names
// sorted as Rust sorts String (bytes, which is code-point order), names
// and strings quoted by serde_json::to_string (RFC 8785's escapes, the
// rest raw), and each number as the serde_json::Value it reads as
// writes it: an integer in [-2^63, 2^64-1] verbatim, any other literal
// through serde_json's float reading and ryu (500.0, 1e16, 1e-7), the
// same rule as UndoLogR1's. It is RFC 8785 for a payload without
// floats and without names that UTF-16 order sorts apart.
func SBRuntime() Dialect { return Dialect{sbRuntime} }

var sbRuntime = &dialect{
	name:  "sb-runtime",
	doc:   "sb-runtime sb-receipt jcs_canonical: code-point member order, serde_json strings, serde_json numbers (ryu floats)",
	parse: ParseOptions{MaxDepth: undologSerdeMaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareCodePoints,
		name:   appendStringJCS,
		str:    appendStringJCS,
		number: undologNumberR1,
	},
}

func init() { register(sbRuntime) }
