package verify

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// TestDetectorsDisjoint runs every format's detector on every JSON document
// under testdata: a receipt (receipt.json, predecessor.json, a line of a
// receipts.jsonl) is claimed by exactly one, and no
// other document (keys, vectors, tables) by more than one. So the order of
// formats decides no outcome.
func TestDetectorsDisjoint(t *testing.T) {
	t.Parallel()
	receipts := 0
	err := filepath.WalkDir("../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		isReceipt := name == "receipt.json" || name == "predecessor.json" || name == "receipts.jsonl"
		var docs [][]byte
		switch {
		case strings.HasSuffix(name, ".json"):
			docs = [][]byte{readFile(t, path)}
		case strings.HasSuffix(name, ".jsonl"):
			sc := bufio.NewScanner(bytes.NewReader(readFile(t, path)))
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
					docs = append(docs, append([]byte(nil), line...))
				}
			}
		default:
			return nil
		}
		for i, raw := range docs {
			doc, err := canon.Parse(raw, receiptParse)
			if err != nil || doc.Kind != canon.Object {
				continue // a planted unreadable line, or no object
			}
			var claimed []string
			for _, f := range formats {
				if f.detect(&doc) {
					claimed = append(claimed, f.name)
				}
			}
			switch {
			case isReceipt && len(claimed) != 1:
				t.Errorf("%s document %d: claimed by %v, want exactly one format", path, i+1, claimed)
			case len(claimed) > 1:
				t.Errorf("%s document %d: claimed by %v", path, i+1, claimed)
			}
			if isReceipt {
				receipts++
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if receipts < 300 {
		t.Fatalf("only %d receipts found under testdata", receipts)
	}
}

// TestFormatNamesUnique: a format name is what a result and an archive
// store, so two formats never share one.
func TestFormatNamesUnique(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range formats {
		name := f.name
		if seen[name] {
			t.Errorf("format %q listed twice", name)
		}
		seen[name] = true
	}
}
