package canon

import (
	"math"
	"strconv"

	"github.com/receiptverify/verify/internal/limits"
)

// AgentMint is the canonical form agentmint-python, AERF's reference
// producer library, signs and chains its notarised-evidence receipts in
// (agentmint/providers/serializers.py JCSSerializer): Python's json.dumps
// for strings and names (ensure_ascii=False), names in code-point order
// (sorted() on str), integers verbatim, and a float that holds an integer
// below 1e21 written as that integer (500.0 as 500, 1e+16 as
// 10000000000000000, -0.0 as 0); any other float as Python's repr (0.25,
// 1e-07, 1e+21). AERF's own producer (tools/aerf_primitives.py) writes
// every float as repr (500.0), so a receipt without integral floats has
// the same bytes in both.
func AgentMint() Dialect { return Dialect{agentMint} }

var agentMint = &dialect{
	name:  "agentmint",
	doc:   "agentmint-python JCSSerializer (AERF receipts): Python json.dumps strings, code-point member order, integral floats as integers",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareCodePoints,
		name:   appendStringJCS,
		str:    appendStringJCS,
		number: appendNumberAgentMint,
	},
}

func init() { register(agentMint) }

// appendNumberAgentMint writes a literal as JCSSerializer writes the
// Python value json.loads reads it as: an int verbatim; a float that is 0
// as 0, one holding an integer below 1e21 as that exact integer, any
// other as repr.
func appendNumberAgentMint(dst []byte, lit string) ([]byte, error) {
	if isIntegerLiteral(lit) {
		return appendPythonInt(dst, lit), nil
	}
	f, ok := parseDouble(lit)
	if !ok {
		return nil, nonFinite(lit)
	}
	if f == 0 {
		return append(dst, '0'), nil
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.AppendFloat(dst, f, 'f', 0, 64), nil
	}
	return AppendPythonRepr(dst, f), nil
}
