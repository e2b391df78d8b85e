package stream

import (
	"bytes"
	"encoding/json"

	"github.com/receiptverify/verify/verify"
)

// RenderJSON encodes a result as one line of JSON (the
// `verify receipts --output json` layout), for Options.Render.
func RenderJSON(r *verify.Result) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		// A Result holds only strings, numbers and maps of them: it
		// always encodes. Say so loudly rather than drop a receipt.
		return []byte(`{"error":"result could not be encoded: ` + err.Error() + `"}` + "\n")
	}
	return buf.Bytes()
}
