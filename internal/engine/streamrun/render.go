package streamrun

import "github.com/receiptverify/verify/verify"

// RenderJSON appends a result to dst as one line of JSON (the
// `verify receipts -f jsonl` layout), for Options.Render.
func RenderJSON(dst []byte, r *verify.Result) []byte {
	return append(r.AppendJSON(dst), '\n')
}
