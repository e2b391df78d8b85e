package analytics

import (
	"cmp"
	"fmt"
	"regexp"

	"github.com/receiptverify/verify/internal/analytics/dberr"
)

// Limits bound the DuckDB engine inside the process, so that a load or a
// report of any size runs in a known amount of memory: past the memory
// limit, DuckDB's joins, aggregates and sorts spill to a temporary
// directory beside the database (DB.tmp) instead of growing.
type Limits struct {
	// Memory is DuckDB's memory_limit ("512MB", "2GiB"); "" is
	// DefaultMemoryLimit. It bounds the engine's buffers, not the whole
	// process: the verifier's own state and the engine's allocations
	// outside its buffer pool come on top (docs/performance.md has the
	// peaks measured).
	Memory string
	// Threads is DuckDB's threads; 0 leaves its default, one per core.
	Threads int
}

// memorySize is what DuckDB's memory_limit takes: a number and a unit.
var memorySize = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$`)

// Check says whether l is well formed, before a database is opened.
func (l Limits) Check() error {
	if l.Memory != "" && !memorySize.MatchString(l.Memory) {
		return fmt.Errorf("memory limit %q: want a number and a unit (B, KB, MB, GB, TB, KiB, MiB, GiB, TiB), as 512MB", l.Memory)
	}
	if l.Threads < 0 {
		return fmt.Errorf("threads %d: want 0 (one per core) or more", l.Threads)
	}
	return nil
}

// SetLimits applies l to the database's engine (every connection).
func (db *DB) SetLimits(l Limits) error {
	if err := l.Check(); err != nil {
		return err
	}
	if _, err := db.sql.Exec("SET GLOBAL memory_limit = '" + cmp.Or(l.Memory, DefaultMemoryLimit) + "'"); err != nil {
		return &dberr.IOError{Op: "set memory limit", Path: db.path, Err: err}
	}
	if l.Threads > 0 {
		if _, err := db.sql.Exec(fmt.Sprintf("SET GLOBAL threads = %d", l.Threads)); err != nil {
			return &dberr.IOError{Op: "set threads", Path: db.path, Err: err}
		}
	}
	return nil
}
