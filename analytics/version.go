package analytics

import "github.com/duckdb/duckdb-go/v2/mapping"

// DuckDBVersion is the version of the DuckDB library linked in ("v1.4.1"),
// as SELECT version() reports it, without opening a database.
func DuckDBVersion() string { return mapping.LibraryVersion() }
