package analytics

import (
	"database/sql"
	"fmt"

	"github.com/duckdb/duckdb-go/v2/mapping"
)

// DuckDBVersion is the version of the DuckDB library linked in ("v1.4.1"),
// as SELECT version() reports it, without opening a database.
func DuckDBVersion() string { return mapping.LibraryVersion() }

// newerSchemaError is a database written by a newer verify.
type newerSchemaError struct{ Found, Known int64 }

func (e *newerSchemaError) Error() string {
	return fmt.Sprintf("written by a newer verify (database schema version %d; this verify knows versions up to %d): "+
		"use that verify or a later one, this one would misread it", e.Found, e.Known)
}

// olderSchemaError is a database written by an earlier verify, of a
// layout this one does not read. Found is 0 for one written before the
// version was recorded.
type olderSchemaError struct{ Found, Known int64 }

func (e *olderSchemaError) Error() string {
	found := "no schema version"
	if e.Found > 0 {
		found = fmt.Sprintf("schema version %d", e.Found)
	}
	return fmt.Sprintf("written by an earlier verify (%s; this verify reads version %d): load the archive again into a new database", found, e.Known)
}

// schemaVersion is the version recorded in the database, 0 when it has
// no record (a new database, or one written before the record was kept).
func schemaVersion(db *sql.DB) (int64, error) {
	var exists bool
	if err := db.QueryRow(`SELECT count(*) > 0 FROM information_schema.tables
		WHERE table_schema = 'main' AND table_catalog = current_database() AND table_name = 'schema_version'`).Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var found sql.NullInt64
	err := db.QueryRow("SELECT max(version) FROM schema_version").Scan(&found)
	return found.Int64, err
}

// checkSchemaVersion refuses an audit database whose recorded version is
// not SchemaVersion: a newer verify's, which this one would misread, or
// an earlier one's, which it does not convert. A database without the
// audit tables (a new one) passes.
func checkSchemaVersion(db *sql.DB, audit bool) error {
	found, err := schemaVersion(db)
	switch {
	case err != nil:
		return err
	case found > SchemaVersion:
		return &newerSchemaError{Found: found, Known: SchemaVersion}
	case found < SchemaVersion && (audit || found > 0):
		return &olderSchemaError{Found: found, Known: SchemaVersion}
	}
	return nil
}

// recordSchemaVersion records SchemaVersion as the database's version.
func recordSchemaVersion(db *sql.DB) error {
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	for _, s := range []string{
		"CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
		"DELETE FROM schema_version",
		fmt.Sprintf("INSERT INTO schema_version VALUES (%d)", SchemaVersion),
	} {
		if _, err := tx.Exec(s); err != nil {
			return err
		}
	}
	return tx.Commit()
}
