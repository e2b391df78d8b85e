// Package tempspool names the row spools of a load and removes those a
// killed load left behind.
package tempspool

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Row spools are temporary files DuckDB reads by name, so they cannot be
// unlinked while a load runs, and a load killed outright (SIGKILL, a
// crash) leaves them behind. Their names carry the loading process's id,
// "verify-load-PID-RANDOM.ndjson", so that a later load can tell them
// apart from a live load's and remove them.
const spoolPrefix = "verify-load-"

// Pattern is the os.CreateTemp pattern of this process's row spools.
func Pattern() string {
	return spoolPrefix + strconv.Itoa(os.Getpid()) + "-*.ndjson"
}

// RemoveStale removes, from dir ("" is os.TempDir()), the row spools
// of loads whose process is gone, and returns their paths. A spool of a
// live process (this one, or another load running beside it) is left
// alone. Where a process's liveness cannot be told (a system without
// kill(pid, 0)), nothing is removed. PIDs are those of this PID namespace:
// loads in other containers should not share a TMPDIR with this one.
func RemoveStale(dir string) ([]string, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	matches, err := filepath.Glob(filepath.Join(dir, spoolPrefix+"*-*.ndjson"))
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), spoolPrefix)
		pidText, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || !processGone(pid) {
			continue
		}
		if err := os.Remove(m); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, m)
	}
	return removed, errors.Join(errs...)
}
