package shard

import (
	"errors"
	"fmt"
	"os"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// Engine bounds the private DuckDB that runs a run's judgments, fold and
// history steps (verify judge, verify finalize).
type Engine struct {
	// Limits are DuckDB's memory limit ("" is DuckDB's own default,
	// 80% of the RAM) and threads.
	Limits analytics.Limits
	// TempDir is where DuckDB spills past the memory limit; "" is a
	// directory of its own under the system's temporary directory,
	// removed with the database.
	TempDir string
}

// WithLimits bounds the DuckDB of the run's judgments by e.
func (r *Run) WithLimits(e Engine) { r.engine = e }

// tempDir is where the DuckDB spills, and what removes it once the
// database is closed (nothing for a directory given).
func (e Engine) tempDir() (string, func(), error) {
	if e.TempDir != "" {
		return e.TempDir, func() {}, nil
	}
	dir, err := os.MkdirTemp("", "verify-judgments-")
	if err != nil {
		return "", nil, fmt.Errorf("the judgments' temporary directory: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// settings are the statements that apply e to a new connection spilling
// to tmp.
func (e Engine) settings(tmp string) []string {
	out := []string{"SET temp_directory = " + sqltext.String(tmp)}
	if e.Limits.Memory != "" {
		out = append(out, "SET memory_limit = "+sqltext.String(e.Limits.Memory))
	}
	if e.Limits.Threads > 0 {
		out = append(out, fmt.Sprintf("SET threads = %d", e.Limits.Threads))
	}
	return out
}

// OutOfMemory says whether err is DuckDB's out-of-memory error: the
// judgments did not fit in the memory limit, the temporary directory
// full or not enough to spill to.
func OutOfMemory(err error) bool {
	var de *duckdb.Error
	return errors.As(err, &de) && de.Type == duckdb.ErrorTypeOutOfMemory
}
