package shard

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
)

// postgresHexFunctions are the two functions queries/shard/*.sql call
// that PostgreSQL names otherwise: unhex (decode) and hex (encode, in
// upper case as DuckDB and ClickHouse give it).
var postgresHexFunctions = []string{
	"CREATE OR REPLACE FUNCTION unhex(text) RETURNS bytea AS 'SELECT decode($1, ''hex'')' LANGUAGE sql IMMUTABLE STRICT",
	"CREATE OR REPLACE FUNCTION hex(bytea) RETURNS text AS 'SELECT upper(encode($1, ''hex''))' LANGUAGE sql IMMUTABLE STRICT",
}

// WritePostgres writes to w a psql script that makes, on PostgreSQL,
// the two tables queries/shard/judgments.sql and history_append.sql
// read, with the rows of run: shard_records, the columns of
// RecordColumns of every part, and history_keys, the rows of the run's
// history that its keys hit (read here, on DuckDB, as the other
// engines' views read them), each loaded by COPY ... FROM STDIN with its
// rows inline as CSV; and the functions unhex and hex. The tables are
// made again (dropped first) in one transaction, then analyzed: run the
// script, then the SQL as it is (psql -f views.sql -f judgments.sql).
func WritePostgres(ctx context.Context, run *Run, w io.Writer) error {
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), run.HistoryParts())
	if err != nil {
		return err
	}
	defer done()
	out := bufio.NewWriterSize(w, 1<<16)
	fmt.Fprintln(out, "\\set ON_ERROR_STOP on")
	fmt.Fprintln(out, "SET client_min_messages = warning;") // no notice of a table not there to drop
	fmt.Fprintln(out, "BEGIN;")
	for _, s := range append([]string{
		"DROP TABLE IF EXISTS shard_records",
		"DROP TABLE IF EXISTS history_keys",
		"CREATE TABLE shard_records (ord bigint, chain_key text, link_key text, scope_key text, nonce_key text, receipt_order text, claim boolean)",
		"CREATE TABLE history_keys (kind text, k bytea, scope bytea, receipt_order bytea)",
	}, postgresHexFunctions...) {
		fmt.Fprintln(out, s+";")
	}
	// bytea's text input is \x and the hex digits; an empty field is
	// NULL in CSV, and no key is empty.
	tables := []struct{ table, cols, query string }{
		{"shard_records", RecordColumns, "SELECT ord, chain_key, link_key, scope_key, nonce_key, receipt_order, CASE WHEN claim THEN 't' WHEN NOT claim THEN 'f' END FROM shard_records ORDER BY ord"},
		{"history_keys", HistoryColumns, `SELECT kind, '\x' || lower(hex(k)), CASE WHEN scope IS NOT NULL THEN '\x' || lower(hex(scope)) END, CASE WHEN receipt_order IS NOT NULL THEN '\x' || lower(hex(receipt_order)) END FROM history_keys`},
	}
	for _, t := range tables {
		fmt.Fprintf(out, "COPY %s (%s) FROM STDIN (FORMAT csv);\n", t.table, t.cols)
		if err := copyRows(ctx, conn, t.query, out); err != nil {
			return fmt.Errorf("postgres: %s: %w", t.table, err)
		}
		fmt.Fprintln(out, "\\.")
	}
	fmt.Fprintln(out, "COMMIT;")
	fmt.Fprintln(out, "ANALYZE shard_records;")
	fmt.Fprintln(out, "ANALYZE history_keys;")
	return out.Flush()
}

// copyRows writes the rows of query as CSV lines, a NULL as an empty
// field: no column of the tables holds an empty string (keys are hex
// digits, outcomes and kinds words).
func copyRows(ctx context.Context, conn *sql.Conn, query string, w io.Writer) error {
	rows, err := conn.QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.NullString)
	}
	rec := make([]string, len(cols))
	cw := csv.NewWriter(w)
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return err
		}
		for i, v := range vals {
			rec[i] = v.(*sql.NullString).String
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
