// Package analytics loads verified receipts into a DuckDB database and
// owns that database: the schema (schema.sql), the connection settings
// and the ingestion path.
//
// # The database
//
// [Open] opens (or creates) one DuckDB file. Every pooled connection is
// initialised the same way before it is used: the session time zone is UTC
// and DuckDB's automatic extension install and load are off, so nothing
// ever reaches for the network (json and parquet are built in). The tables
// are created if missing: files (one row per file loaded), receipts (one
// row per receipt line), rejects (one row per line that could not be read)
// and expected_tools (the expected tool schemas).
//
// # Loading
//
// [Load] verifies files with [stream.Run] and stores the results. Each file
// is identified by the SHA-256 of its bytes as stored; a file whose hash is
// already in files is skipped, so loading the same input twice adds
// nothing. Each file's rows go into the database in one transaction
// together with its files row, so a load that fails or is cancelled part
// way leaves the database as it was before that file.
package analytics

import (
	"context"
	"database/sql"
	"database/sql/driver"
	_ "embed"
	"errors"
	"fmt"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

//go:embed schema.sql
var schemaSQL string

// connSettings run on every new connection, in this order: extension
// autoloading goes off before anything could trigger it.
var connSettings = []string{
	"SET autoinstall_known_extensions=false",
	"SET autoload_known_extensions=false",
	"SET TimeZone='UTC'",
}

// DB is an open audit database.
type DB struct {
	sql       *sql.DB
	connector *duckdb.Connector
	path      string
}

// Open opens the DuckDB database at path, creating the file and the tables
// if missing. An empty path opens a private in-memory database.
func Open(path string) (*DB, error) {
	if strings.ContainsAny(path, "?") {
		// The driver reads everything after '?' as configuration.
		return nil, fmt.Errorf("analytics: database path %q: '?' is not allowed", path)
	}
	c, err := duckdb.NewConnector(path, initConn)
	if err != nil {
		return nil, &IOError{Op: "open", Path: path, Err: err}
	}
	db := &DB{sql: sql.OpenDB(c), connector: c, path: path}
	if _, err := db.sql.Exec(schemaSQL); err != nil {
		db.Close()
		return nil, &IOError{Op: "create schema", Path: path, Err: err}
	}
	if _, err := db.sql.Exec(undatedDaySQL); err != nil {
		db.Close()
		return nil, &IOError{Op: "date undated receipts", Path: path, Err: err}
	}
	return db, nil
}

// undatedDaySQL gives receipts without issued_at the UTC day of their
// load, as Load now does when it inserts them. Databases written before
// that left such receipts (UndoLog rows, Overturn entries) without a day,
// so that no daily report covered them; it changes nothing once done.
const undatedDaySQL = `UPDATE receipts SET day = CAST(f.loaded_at AS DATE)
FROM files f
WHERE receipts.day IS NULL AND receipts.issued_at IS NULL AND f.file_sha256 = receipts.file_sha256`

// initConn is the connector's per-connection callback.
func initConn(execer driver.ExecerContext) error {
	for _, s := range connSettings {
		if _, err := execer.ExecContext(context.Background(), s, nil); err != nil {
			return fmt.Errorf("analytics: %s: %w", s, err)
		}
	}
	return nil
}

// SQL is the connection pool, for queries and reports. Every connection it
// hands out has the settings Open documents.
func (db *DB) SQL() *sql.DB { return db.sql }

// Path is the database file as given to Open.
func (db *DB) Path() string { return db.path }

// Close closes the pool and the database.
func (db *DB) Close() error {
	return errors.Join(db.sql.Close(), db.connector.Close())
}

// IOError is a database that could not be opened, read or written (as
// opposed to input that could not be read). The CLI maps it to exit code
// 74.
type IOError struct {
	Op   string // "open", "create schema", "load", ...
	Path string // the database or the input file concerned
	Err  error
}

func (e *IOError) Error() string {
	if e.Path == "" {
		return "database " + e.Op + ": " + e.Err.Error()
	}
	return "database " + e.Op + ": " + e.Path + ": " + e.Err.Error()
}

func (e *IOError) Unwrap() error { return e.Err }
