// Package enginetest holds the test that runs every queries/*.sql file,
// unchanged but for its one placeholder, on ClickHouse (chDB, reading the
// Parquet export) and on PostgreSQL (a server started into a temporary
// directory, loaded from the export), and compares each result with
// DuckDB's over the audit database: per day and for all days, with the day
// bound as a parameter and written as a literal.
//
// The engines are installed by .ci/setup (apt: postgresql; npm install
// in testdata/chdb). Without them the test skips, saying what is missing;
// with VERIFY_ENGINES=required (as .ci/run sets it) a missing engine is a
// failure.
package enginetest
