package vectors

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"testing"
)

// ReadJSONL reads a JSON Lines vector file into values of type T, skipping
// blank lines; any error fails the test.
func ReadJSONL[T any](tb testing.TB, path string) []T {
	tb.Helper()
	fh, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer fh.Close()
	var out []T
	sc := bufio.NewScanner(fh)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var v T
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			tb.Fatalf("%s:%d: %v", path, line, err)
		}
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return out
}
