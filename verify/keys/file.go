package keys

import (
	"io"
	"os"
)

// LoadFile reads the key file at path (at most MaxFileBytes) and loads it
// as Load does, named by path.
func LoadFile(path string) (*Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, &Error{Reason: ReasonMalformedFile, File: path, Index: -1, Detail: "read error", Err: err}
	}
	return Load(path, data)
}

// LoadFiles loads the key files at paths into one Directory, in the order
// given, as the command's repeated --keys does.
func LoadFiles(paths ...string) (*Directory, error) {
	snaps := make([]*Snapshot, 0, len(paths))
	for _, p := range paths {
		s, err := LoadFile(p)
		if err != nil {
			return nil, err
		}
		snaps = append(snaps, s)
	}
	return NewDirectory(snaps...)
}
