package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/toolschema"
)

// maxTrustFile bounds key, schema and predecessor files, which are read
// whole.
const maxTrustFile = 64 << 20

// readSmallFile reads a whole trust file; errors are *inputError naming it.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrustFile+1))
	if err != nil {
		return nil, &inputError{fmt.Errorf("%s: %w", path, err)}
	}
	if len(b) > maxTrustFile {
		return nil, &inputError{fmt.Errorf("%s: larger than %d bytes", path, maxTrustFile)}
	}
	return b, nil
}

// loadKeys reads every --keys file into one directory, in the order given.
func loadKeys(paths []string) (*keys.Directory, error) {
	var snaps []*keys.Snapshot
	for _, p := range paths {
		data, err := readSmallFile(p)
		if err != nil {
			return nil, err
		}
		s, err := keys.Load(p, data)
		if err != nil {
			return nil, &inputError{err}
		}
		snaps = append(snaps, s)
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		return nil, &inputError{err}
	}
	return d, nil
}

// loadSchemas reads schema files and directories of them (*.json, in name
// order); each file is one server, named after the file.
func loadSchemas(paths []string) (*toolschema.Set, error) {
	set := toolschema.NewSet()
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, &inputError{err}
		}
		files := []string{p}
		if fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, &inputError{err}
			}
			files = files[:0]
			for _, e := range entries {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
					files = append(files, filepath.Join(p, e.Name()))
				}
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := readSmallFile(f)
			if err != nil {
				return nil, err
			}
			if err := set.Add(toolschema.ServerName(f), data); err != nil {
				return nil, &inputError{err}
			}
		}
	}
	return set, nil
}
