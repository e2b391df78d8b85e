package main

import (
	"bytes"
	"os"
	"strconv"
)

// bytesRead is the bytes the process has read through read system calls
// so far (rchar of /proc/self/io: files, page cache hits included), which
// is how far DuckDB has read the row spools during a commit.
func bytesRead() (int64, bool) {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte("rchar:")); ok {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(rest)), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}
