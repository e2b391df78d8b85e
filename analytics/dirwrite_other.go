//go:build !unix

package analytics

// writableDir leaves the check to DuckDB where access(2) is not there.
func writableDir(string) error { return nil }
