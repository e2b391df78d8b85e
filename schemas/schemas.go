// Package schemas embeds the JSON Schemas of the tool's output contracts.
package schemas

import _ "embed"

// Result is the JSON Schema of one `verify receipts --output json` object.
//
//go:embed result.schema.json
var Result []byte
