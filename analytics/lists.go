package analytics

import (
	"fmt"

	"github.com/receiptverify/verify/verify"
)

// receipts.reasons and receipts.tool_servers are LISTs of text
// (VARCHAR[]): a lake engine reads them from the Parquet export as lists,
// and a query tests membership with list_contains rather than a LIKE on
// joined text.

// reasonList scans receipts.reasons, a LIST of reason codes.
type reasonList []verify.Reason

func (l *reasonList) Scan(v any) error {
	*l = nil
	if v == nil {
		return nil
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("reasons: a %T, not a list", v)
	}
	for _, e := range items {
		s, ok := e.(string)
		if !ok {
			return fmt.Errorf("reasons: an element %T, not text", e)
		}
		*l = append(*l, verify.Reason(s))
	}
	return nil
}

// reasonStrings is rs as the []string a LIST parameter binds from.
func reasonStrings(rs []verify.Reason) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = string(r)
	}
	return out
}
