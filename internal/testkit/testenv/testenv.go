// Package testenv says which of the project's tests a run of go test
// takes. The edit-test loop (VERIFY_ENGINES=off go test ./...) keeps to a
// budget (docs/performance.md, "Test time"); the tests that cost the most
// and whose code paths smaller tests also reach run in CI, where .ci/run
// sets VERIFY_TESTS=all.
package testenv

import (
	"os"
	"testing"
)

// All reports whether the long tests run: VERIFY_TESTS=all, as in CI.
func All() bool { return os.Getenv("VERIFY_TESTS") == "all" }

// Long skips tb unless [All]: a long test, run by CI (.ci/run) and by
// VERIFY_TESTS=all go test.
func Long(tb testing.TB) {
	tb.Helper()
	if !All() {
		tb.Skip("a long test: VERIFY_TESTS=all runs it (as .ci/run does)")
	}
}
