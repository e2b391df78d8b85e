package canon

import "github.com/receiptverify/verify/internal/limits"

// AgentReceiptsGo is the canonical form the agent-receipts Go SDK signed
// and hashed from v0.1.0 to v0.4.0 (sdk/go/receipt/hash.go Canonicalize,
// before its ADR-0009 fix in v0.5.0), and the Go mcp-proxy through it up
// to v0.5.3 (whose go.mod requires sdk/go v0.4.0): RFC 8785's shape, but
// member names in code-point order (Go's sort.Strings), strings quoted by Go's json.Marshal, which also escapes
// <, >, & as \u003c, \u003e, \u0026 and U+2028, U+2029 as \u2028, \u2029,
// and every number read into a float64 and written as ECMAScript's
// Number::toString, so an integer beyond 2^53 is signed as the double
// nearest it (RFC8785 refuses it). A receipt without those characters
// and names outside U+E000-U+FFFF has the same bytes in both dialects.
func AgentReceiptsGo() Dialect { return Dialect{agentReceiptsGo} }

var agentReceiptsGo = &dialect{
	name:  "agentreceipts-go-v0.4",
	doc:   "agent-receipts Go SDK v0.1.0-v0.4.0: code-point member order, Go encoding/json escapes (& < > U+2028 U+2029), numbers through a double",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareCodePoints,
		name:   appendStringGo,
		str:    appendStringGo,
		number: appendNumberDouble,
	},
}

func init() { register(agentReceiptsGo) }

// appendNumberDouble writes a literal as the double it reads as, the way
// Go's json.Unmarshal into any and an ECMAScript formatter write it:
// 9007199254740993 becomes 9007199254740992. Only a literal beyond the
// double range is refused.
func appendNumberDouble(dst []byte, lit string) ([]byte, error) {
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	return AppendES6(dst, f), nil
}
