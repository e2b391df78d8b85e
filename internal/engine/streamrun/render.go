package streamrun

import "github.com/receiptverify/verify/internal/engine/result"

// RenderJSON appends a result to dst as one line of JSON (the
// `verify receipts --output json` layout), for Options.Render.
func RenderJSON(dst []byte, r *result.Result) []byte {
	return append(r.AppendJSON(dst), '\n')
}
