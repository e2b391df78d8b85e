//go:build unix

package analytics

import (
	"errors"
	"fmt"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// writableDir refuses a database whose directory cannot be written:
// DuckDB writes its journal (NAME.wal) beside the file at the first
// commit, and says no more than that it could not open the journal.
func writableDir(path string) error {
	dir := filepath.Dir(path)
	err := unix.Access(dir, unix.W_OK)
	if errors.Is(err, unix.EACCES) || errors.Is(err, unix.EROFS) || errors.Is(err, unix.EPERM) {
		return fmt.Errorf("its directory %s is not writable (%v): the database writes its journal, %s.wal, beside it; make the directory writable or move the database", dir, err, filepath.Base(path))
	}
	return nil // a missing directory or another error: opening says what it is
}
