package analytics

import (
	"database/sql"
	"fmt"
)

// migrateEvidence brings a database written before rows recorded where
// their lines are to the present schema, in one transaction: receipts.raw
// may be NULL (the line left in the archive), and the signature text gives
// way to its SHA-256, which is all the replays finding compares and a
// fraction of the size (an ML-DSA-65 signature is 4.4 KB of base64). It
// does nothing on a database already migrated.
func migrateEvidence(db *sql.DB) error {
	var rawNotNull, hasSignature bool
	if err := db.QueryRow(`SELECT
		count(*) FILTER (WHERE column_name = 'raw' AND is_nullable = 'NO') > 0,
		count(*) FILTER (WHERE column_name = 'signature') > 0
		FROM information_schema.columns
		WHERE table_schema = 'main' AND table_catalog = current_database() AND table_name = 'receipts'`).Scan(&rawNotNull, &hasSignature); err != nil {
		return err
	}
	if !rawNotNull && !hasSignature {
		return nil
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var stmts []string
	if rawNotNull {
		stmts = append(stmts, "ALTER TABLE receipts ALTER COLUMN raw DROP NOT NULL")
	}
	if hasSignature {
		stmts = append(stmts,
			"UPDATE receipts SET signature_sha256 = sha256(signature) WHERE signature_sha256 IS NULL AND signature IS NOT NULL AND signature <> ''",
			"ALTER TABLE receipts DROP COLUMN signature")
	}
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// newerSchemaError is a database written by a newer verify.
type newerSchemaError struct{ Found, Known int64 }

func (e *newerSchemaError) Error() string {
	return fmt.Sprintf("written by a newer verify (database schema version %d; this verify knows versions up to %d): "+
		"use that verify or a later one, this one would misread it", e.Found, e.Known)
}

// checkSchemaVersion refuses a database whose recorded version is newer
// than SchemaVersion; one without the record was written before it was
// kept, and is older.
func checkSchemaVersion(db *sql.DB) error {
	var exists bool
	if err := db.QueryRow(`SELECT count(*) > 0 FROM information_schema.tables
		WHERE table_schema = 'main' AND table_catalog = current_database() AND table_name = 'schema_version'`).Scan(&exists); err != nil || !exists {
		return err
	}
	var found sql.NullInt64
	if err := db.QueryRow("SELECT max(version) FROM schema_version").Scan(&found); err != nil {
		return err
	}
	if found.Valid && found.Int64 > SchemaVersion {
		return &newerSchemaError{Found: found.Int64, Known: SchemaVersion}
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
