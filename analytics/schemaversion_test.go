package analytics

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemaVersion: a database records the version that wrote it, and
// one a newer verify wrote is refused, for loading and for reading, in
// plain words.
func TestSchemaVersion(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.duckdb")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var v int64
	if err := db.SQL().QueryRow("SELECT version FROM schema_version").Scan(&v); err != nil || v != SchemaVersion {
		t.Fatalf("recorded version %d, %v; want %d", v, err, SchemaVersion)
	}
	if _, err := db.SQL().Exec("UPDATE schema_version SET version = version + 1"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for name, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
		db, err := open(path)
		var newer *newerSchemaError
		if !errors.As(err, &newer) || newer.Found != SchemaVersion+1 {
			if db != nil {
				db.Close()
			}
			t.Fatalf("%s: %v, want a NewerSchemaError", name, err)
		}
		if !strings.Contains(err.Error(), "written by a newer verify") {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestOlderSchemaRefused: a database an earlier verify wrote (an older
// recorded version, or none recorded beside the audit tables) is refused
// for loading and for reading, saying to load it again, and left as it is.
func TestOlderSchemaRefused(t *testing.T) {
	t.Parallel()
	for name, older := range map[string]string{
		"older version": "UPDATE schema_version SET version = version - 1",
		"no version":    "DROP TABLE schema_version",
	} {
		path := filepath.Join(t.TempDir(), "a.duckdb")
		db, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.SQL().Exec(older); err != nil {
			t.Fatal(err)
		}
		db.Close()
		for how, open := range map[string]func(string) (*DB, error){"Open": Open, "OpenReadOnly": OpenReadOnly} {
			db, err := open(path)
			var oe *olderSchemaError
			if !errors.As(err, &oe) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "load the archive again into a new database") {
				if db != nil {
					db.Close()
				}
				t.Errorf("%s, %s: %v, want an olderSchemaError naming the file", name, how, err)
			}
		}
	}
}
