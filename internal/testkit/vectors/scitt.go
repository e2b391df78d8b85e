package vectors

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TransparentStatement is the COSE_Sign1 bytes of the transparent
// statement in dir/receipt.json (an interop vector such as
// testdata/interop/scitt/es256-attached, whose JSON line carries it as
// base64url in transparent_statement); any error fails the test.
func TransparentStatement(tb testing.TB, dir string) []byte {
	tb.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "receipt.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var doc struct {
		TS string `json:"transparent_statement"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	cose, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(doc.TS, "="))
	if err != nil {
		tb.Fatal(err)
	}
	return cose
}
