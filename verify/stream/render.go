package stream

import "github.com/receiptverify/verify/verify"

// RenderJSON encodes a result as one line of JSON (the
// `verify receipts --output json` layout), for Options.Render.
func RenderJSON(r *verify.Result) []byte {
	return append(r.AppendJSON(make([]byte, 0, 2048)), '\n')
}
