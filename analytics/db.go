// Package analytics loads verified receipts into a DuckDB database and
// owns that database: the schema (schema.sql), the connection settings
// and the ingestion path.
//
// # The database
//
// [Open] opens (or creates) one DuckDB file for loading; [OpenReadOnly]
// opens one for reading (queries, reports, export), so that any number of
// readers run beside each other and none of them changes the file.
// DuckDB's automatic extension install and load are off in the
// configuration the database is opened with, before DuckDB reads a byte of
// the file, so nothing ever reaches for the network (json and parquet are
// built in); and a file that is not a DuckDB database (a SQLite file, a
// Parquet file) is refused before DuckDB sees it, as DuckDB would try to
// read it with an extension. Every pooled connection's time zone is UTC.
// Open creates the tables if missing: files (one row per file loaded),
// receipts (one row per receipt line), rejects (one row per line that
// could not be read) and expected_tools (the expected tool schemas). It
// refuses another tool's database (one with tables, none of them files).
//
// # Loading
//
// [DB.Load] verifies files with [stream.Run] and stores the results, judging
// chains and nonces against every receipt stored before. Each file is
// identified by the SHA-256 of its content (content.go): content already
// stored is skipped, so loading the same input twice adds nothing, and a
// file that has grown adds its new lines only. Each file's rows go into the
// database in one transaction together with its files row, so a load that
// fails or is cancelled part way leaves the database as it was before that
// file. Each load records the trust material its verdicts came from
// (trust.go).
//
// # What it exports
//
// Only what the command and the sharded lake use: [DB] and its methods
// (Load, Report, RunQuery, ExportParquet and the look-ups of explain and
// show), their options and summaries, and the receipts table a shard
// writes ([ReceiptTable]). What the command shares with analytics without
// the database lives in the module's internal packages: the query
// catalog in queries, a query's result and its written forms in
// internal/analytics/table, severities in internal/analytics/severity, baseline files in
// internal/analytics/baseline, the errors the command tells apart in
// internal/analytics/dberr, the export layout in internal/analytics/exportdir.
package analytics

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/analytics/dberr"
)

//go:embed schema.sql
var schemaSQL string

// openConfig is the DuckDB configuration every database is opened with:
// extensions are never downloaded or loaded behind our back, and DuckDB
// keeps to DefaultMemoryLimit until SetLimits says otherwise. It is given
// at open, not per connection, as opening a file may already need an
// extension (DuckDB reads a SQLite file through one).
//
// Memory DuckDB frees goes back to the system sooner than by its
// defaults (a flush after any task that allocated 16MB rather than 128MB,
// and purging on a background thread): the peak of an audit of 1M
// ML-DSA-65 receipts fell from 929 to 799 MB and of 3M from 1,150 to
// 1,068 MB, for about 1% more CPU (docs/performance.md).
var openConfig = url.Values{
	"autoinstall_known_extensions": {"false"},
	"autoload_known_extensions":    {"false"},
	"memory_limit":                 {DefaultMemoryLimit}, // see Limits
	"allocator_flush_threshold":    {"16MB"},
	"allocator_background_threads": {"true"},
}

// connSettings run on every new connection.
var connSettings = []string{
	"SET TimeZone='UTC'",
}

// DB is an open audit database.
type DB struct {
	sql       *sql.DB
	connector *duckdb.Connector
	path      string
	readOnly  bool
}

// Open opens the DuckDB database at path for loading, creating the file and
// the tables if missing. An empty path opens a private in-memory database.
// A database of another schema version than SchemaVersion is refused
// (checkSchemaVersion): an earlier verify's is loaded again into a new
// one, not converted.
func Open(path string) (*DB, error) {
	if path != "" {
		if err := writableDir(path); err != nil {
			return nil, &dberr.IOError{Op: "open", Path: path, Err: err}
		}
	}
	db, err := open(path, false)
	if err != nil {
		return nil, err
	}
	audit, err := db.checkOurs(false)
	if err != nil {
		db.Close()
		return nil, err
	}
	if err := checkSchemaVersion(db.sql, audit); err != nil {
		db.Close()
		return nil, &dberr.IOError{Op: "open", Path: path, Err: err}
	}
	if _, err := db.sql.Exec(schemaSQL); err != nil {
		db.Close()
		return nil, &dberr.IOError{Op: "create schema", Path: path, Err: err}
	}
	if !audit {
		if err := recordSchemaVersion(db.sql); err != nil {
			db.Close()
			return nil, &dberr.IOError{Op: "record schema version", Path: path, Err: err}
		}
	}
	return db, nil
}

// OpenReadOnly opens the audit database at path for reading: DuckDB's
// access_mode READ_ONLY, no schema setup, nothing written. Any number of
// processes may read one database at once, but not while one writes it
// (DuckDB locks the file): that is a *lockedError.
func OpenReadOnly(path string) (*DB, error) {
	if path == "" {
		return nil, errors.New("analytics: a read-only database needs a file")
	}
	db, err := open(path, true)
	if err != nil {
		return nil, err
	}
	if _, err := db.checkOurs(true); err != nil {
		db.Close()
		return nil, err
	}
	if err := checkSchemaVersion(db.sql, true); err != nil {
		db.Close()
		return nil, &dberr.IOError{Op: "open", Path: path, Err: err}
	}
	return db, nil
}

func open(path string, readOnly bool) (*DB, error) {
	cfg := url.Values{}
	for k, v := range openConfig {
		cfg[k] = v
	}
	if readOnly {
		cfg.Set("access_mode", "READ_ONLY")
	}
	// The driver reads everything after '?' as configuration, and parses
	// the name as a URL: a name that would not come back as given, with
	// our configuration, is refused rather than opened without it.
	dsn := path + "?" + cfg.Encode()
	if u, err := url.Parse(dsn); err != nil || u.RawQuery != cfg.Encode() || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("analytics: database path %q: '?', '#' and '%%' not followed by two hex digits are not allowed", path)
	}
	if err := sniff(path); err != nil {
		return nil, &dberr.IOError{Op: "open", Path: path, Err: err}
	}
	c, err := duckdb.NewConnector(dsn, initConn)
	if err != nil {
		return nil, &dberr.IOError{Op: "open", Path: path, Err: asLockedError(path, err)}
	}
	return &DB{sql: sql.OpenDB(c), connector: c, path: path, readOnly: readOnly}, nil
}

// duckdbMagic is at offset 8 of every DuckDB database file.
const duckdbMagic = "DUCK"

// sniff refuses an existing file that is not a DuckDB database before
// DuckDB opens it: DuckDB would read a SQLite file with an extension (and
// try to download it), and open a Parquet file as an in-memory database
// with a view over it, where a load would vanish at exit.
func sniff(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // DuckDB creates it, or says it is missing
	}
	if err != nil {
		return err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return err // DuckDB reports what it is
	}
	var head [16]byte
	n, _ := io.ReadFull(f, head[:])
	if n >= 12 && string(head[8:12]) == duckdbMagic {
		return nil
	}
	what := ""
	switch {
	case n == 0:
		what = " (an empty file)"
	case bytes.HasPrefix(head[:n], []byte("SQLite format 3\x00")):
		what = " (a SQLite database)"
	case bytes.HasPrefix(head[:n], []byte("PAR1")):
		what = " (a Parquet file)"
	}
	return errors.New("not a DuckDB database" + what)
}

// auditTables are the tables that make a database an audit database.
var auditTables = []string{"files", "receipts"}

// checkOurs refuses a database that is not an audit database: read-only,
// one without its tables (another tool's, or none yet); for loading, one
// that has tables but not ours (another tool's, which the schema would
// change). audit is whether the audit tables are there.
func (db *DB) checkOurs(readOnly bool) (audit bool, err error) {
	rows, err := db.sql.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'main' AND table_catalog = current_database() ORDER BY table_name")
	if err != nil {
		return false, &dberr.IOError{Op: "open", Path: db.path, Err: err}
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			return false, &dberr.IOError{Op: "open", Path: db.path, Err: err}
		}
		tables = append(tables, t)
	}
	if err := rows.Err(); err != nil {
		return false, &dberr.IOError{Op: "open", Path: db.path, Err: err}
	}
	var missing []string
	for _, t := range auditTables {
		if !slices.Contains(tables, t) {
			missing = append(missing, t)
		}
	}
	switch {
	case len(missing) == 0:
		return true, nil
	case readOnly:
		return false, &dberr.IOError{Op: "open", Path: db.path, Err: fmt.Errorf("not an audit database: no table %s (verify load or verify audit makes one)", strings.Join(missing, ", "))}
	case len(tables) > 0 && len(missing) == len(auditTables):
		const named = 5
		more := ""
		if len(tables) > named {
			more = fmt.Sprintf(" and %d more", len(tables)-named)
			tables = tables[:named]
		}
		return false, &dberr.IOError{Op: "open", Path: db.path, Err: fmt.Errorf("not an audit database: it holds other tables (%s%s), left as they are", strings.Join(tables, ", "), more)}
	}
	return false, nil
}

// lockedError is a database another process holds: DuckDB lets one
// process write a database, or any number read it, never both.
type lockedError struct {
	Path    string
	PID     int    // 0 when DuckDB did not say
	Program string // the holder's executable, when DuckDB said
	Err     error  // DuckDB's own message
}

func (e *lockedError) Error() string {
	who := "another process"
	if e.PID != 0 {
		who = fmt.Sprintf("process %d", e.PID)
		if e.Program != "" {
			who += " (" + e.Program + ")"
		}
	}
	return "the database is in use: " + who + " has it open; DuckDB lets one process write a database or any number read it, not both at once, so run this again when that one has finished"
}

func (e *lockedError) Unwrap() error { return e.Err }

// DuckDB's lock conflict message, and the holder it names.
var (
	lockRE   = regexp.MustCompile(`Could not set lock on file`)
	holderRE = regexp.MustCompile(`Conflicting lock is held in (.*?) \(PID (\d+)\)`)
)

// asLockedError makes DuckDB's lock conflict a *lockedError.
func asLockedError(path string, err error) error {
	msg := err.Error()
	if !lockRE.MatchString(msg) {
		return err
	}
	le := &lockedError{Path: path, Err: err}
	if m := holderRE.FindStringSubmatch(msg); m != nil {
		le.Program = m[1]
		le.PID, _ = strconv.Atoi(m[2])
	}
	return le
}

// ReadOnly reports whether the database was opened with OpenReadOnly.
func (db *DB) ReadOnly() bool { return db.readOnly }

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

// The database file's version and the engine's default memory bound.
const (
	// SchemaVersion is the version of the audit database's layout this verify
	// writes and reads. A database records the version that created it
	// (schema_version table); a verify refuses a database of another
	// version rather than misread it. Raise it with a change to a table an
	// earlier verify made (a column added, a type changed).
	SchemaVersion = 4

	// DefaultMemoryLimit is DuckDB's memory_limit unless Limits say otherwise.
	// DuckDB's own default is 80% of the machine's memory, which let an audit
	// of 1M receipts grow past 1 GB; at a quarter of this limit the same audit
	// ran out of memory judging links (a hash join that did not spill), at
	// half of it the audit passed, so this leaves a factor of two.
	DefaultMemoryLimit = "512MB"
)
