// Package shard runs a verification as many map tasks and one finalize,
// for archives too large for one machine. A map task (`verify receipts
// --emit DIR`, [Create]) verifies one shard of the input (a file, a few
// files) with stream.Map and writes each record as a row of Parquet in
// DIR: what needs only the receipt itself (its verdict alone and its
// axes), the keys of its chain link and nonce, and its state. The
// judgments of chains and nonces across all shards are SQL
// (queries/shard/judgments.sql), which runs on DuckDB here or on any
// engine that reads Parquet; [Finalize] folds its rows into the verdicts
// one `verify receipts` over the whole input gives, in the same order.
//
// # Layout of a map task's directory
//
//	manifest.json            the shard's number, its summary, the build that wrote it
//	records-NNNNN.parquet    one row per record that is not a blank line, in input order
//
// The records' columns: ord (the record's place in the whole run: shard
// × 2^40 + its ordinal in the shard, blank lines counted), source, line,
// format, verdict and reasons (verified alone: the chain and nonce axes
// not judged), axes (JSON), chain_key, link_key, scope_key, nonce_key
// (hex, NULL where the receipt has none: see stream.Keys) and state (the
// result in a binary form that only the same build of verify reads, which
// the manifest names and Finalize checks).
package shard

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/receiptverify/verify/verify/stream"
)

// Manifest names a map task's directory: what Finalize needs besides the
// records.
const Manifest = "manifest.json"

// manifestVersion is the version of the directory's layout.
const manifestVersion = 1

// SeqBits is how many low bits of ord hold a record's ordinal in its
// shard; the shard's number is above them.
const SeqBits = 40

// MaxShard is the largest shard number.
const MaxShard = 1<<(63-SeqBits) - 1

type manifest struct {
	Version int               `json:"version"`
	Build   string            `json:"build"`
	Shard   int64             `json:"shard"`
	Parts   []string          `json:"parts"`
	Summary stream.MapSummary `json:"summary"`
}

// build names the build of verify that runs, as the state's binary form
// is private to it: the module version and, when recorded, the VCS
// revision; the executable's modification time otherwise would not
// distinguish two development builds, so those are named "devel" and a
// mismatch between two of them is not caught.
func build() string {
	b := "devel"
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b = v
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			b += " " + s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			b += "+modified"
		}
	}
	return b
}

func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, Manifest))
	if err != nil {
		return nil, fmt.Errorf("%s: not a finished map task's directory: %w", dir, err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, Manifest), err)
	}
	if m.Version != manifestVersion {
		return nil, fmt.Errorf("%s: layout version %d, want %d", dir, m.Version, manifestVersion)
	}
	if m.Build != build() {
		return nil, fmt.Errorf("%s: written by verify build %q, this is %q: run the map and the finalize with one build", dir, m.Build, build())
	}
	if m.Shard < 0 || m.Shard > MaxShard {
		return nil, fmt.Errorf("%s: shard %d out of range", dir, m.Shard)
	}
	for _, p := range m.Parts {
		if p != filepath.Base(p) || !strings.HasSuffix(p, ".parquet") {
			return nil, fmt.Errorf("%s: part %q is not a Parquet file of the directory", dir, p)
		}
	}
	return &m, nil
}

// openDuckDB opens a private in-memory DuckDB that never loads an
// extension behind our back (Parquet is built in).
func openDuckDB() (*sql.DB, error) {
	cfg := url.Values{"autoinstall_known_extensions": {"false"}, "autoload_known_extensions": {"false"}}
	db, err := sql.Open("duckdb", "?"+cfg.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one session: temporary tables and views are per connection
	if _, err := db.Exec("SET TimeZone='UTC'"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// sqlString quotes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
