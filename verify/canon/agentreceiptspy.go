package canon

import (
	"strconv"

	"github.com/receiptverify/verify/internal/limits"
)

// AgentReceiptsPy is the canonical form the agent-receipts Python SDK
// signs and hashes (obsigna receipt/hash.py canonicalize): RFC 8785 in
// every respect but one. A JSON integer is a Python int there, of any
// size, and is written verbatim (str(value)), where RFC 8785 goes through
// a double and cannot carry an integer beyond 2^53 that the double would
// change: RFC8785 refuses 9007199254740993, this writes it as given. A
// fraction or an exponent is a float and written as ECMAScript's
// Number::toString, as in RFC 8785. Wherever RFC8785 accepts a document,
// the two write the same bytes. Python refuses to print an int of more
// than 4300 digits, and so does this dialect.
func AgentReceiptsPy() Dialect { return Dialect{agentReceiptsPy} }

var agentReceiptsPy = &dialect{
	name:  "agentreceipts-py",
	doc:   "agent-receipts Python SDK (obsigna): RFC 8785, but integers of any size written verbatim",
	parse: ParseOptions{MaxDepth: limits.MaxDepth, Duplicates: RejectDuplicates},
	w: writer{
		order:  compareUTF16,
		name:   appendStringJCS,
		str:    appendStringJCS,
		number: appendNumberPythonIntJCS,
	},
}

func init() { register(agentReceiptsPy) }

func appendNumberPythonIntJCS(dst []byte, lit string) ([]byte, error) {
	if !isIntegerLiteral(lit) {
		return appendNumberJCS(dst, lit)
	}
	digits := len(lit)
	if lit[0] == '-' {
		digits--
	}
	if digits > undologPythonMaxIntDigits {
		return nil, &Error{Reason: ReasonUnsupported, Offset: -1,
			Detail: "integer literal has " + strconv.Itoa(digits) + " digits; Python refuses to print more than 4300"}
	}
	return appendPythonInt(dst, lit), nil
}
