// Package schemas embeds the JSON Schemas of the tool's output contracts.
package schemas

import (
	_ "embed"
	"slices"
)

// Result is the JSON Schema of one `verify receipts --output json` object:
// a copy of its own for each caller.
func Result() []byte { return slices.Clone(result) }

//go:embed result.schema.json
var result []byte
