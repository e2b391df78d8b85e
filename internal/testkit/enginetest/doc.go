// Package enginetest holds the test that runs every queries/*.sql file,
// unchanged but for its one placeholder, on ClickHouse (chDB, reading the
// Parquet export) and on PostgreSQL (a server started into a temporary
// directory, loaded from the export), and compares each result with
// DuckDB's over the audit database: per day and for all days, with the day
// bound as a parameter and written as a literal. It also reads every
// file of the export with hyparquet (testdata/hyparquet), a Parquet
// reader that shares no code with DuckDB, and compares its schema
// (timestamps as UTC instants, lists as LISTs) and rows with DuckDB's
// reading, for the fixture's export and for a day cut into several parts.
//
// The engines are installed by .ci/setup (apt: postgresql; npm install
// in testdata/chdb and testdata/hyparquet). Without them the test skips,
// saying what is missing; with VERIFY_ENGINES=required (as .ci/run sets
// it) a missing engine is a failure.
package enginetest
