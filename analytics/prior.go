package analytics

import (
	"context"
	"database/sql"
	"strings"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// archivePrior lets a load resolve chains that cross from receipts loaded
// earlier into the new files (a session that spans midnight, say), so a
// daily load does not report their first link as absent, and a new receipt
// naming a predecessor that an archived receipt already names is a fork.
type archivePrior struct{ db *sql.DB }

// priorChunk is how many prefixes one INSERT carries.
const priorChunk = 500

func (p archivePrior) Links(ctx context.Context, prefixes []string) (map[string]stream.PriorLink, error) {
	out := map[string]stream.PriorLink{}
	conn, err := p.db.Conn(ctx) // the temporary table lives on one connection
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var loaded int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM receipts LIMIT 1)").Scan(&loaded); err != nil || loaded == 0 {
		return out, err
	}
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE prior_links (prefix VARCHAR)"); err != nil {
		return nil, err
	}
	defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS prior_links")
	for start := 0; start < len(prefixes); start += priorChunk {
		chunk := prefixes[start:min(start+priorChunk, len(prefixes))]
		args := make([]any, len(chunk))
		for i, s := range chunk {
			args[i] = s
		}
		stmt := "INSERT INTO prior_links VALUES " + strings.TrimSuffix(strings.Repeat("(?),", len(chunk)), ",")
		if _, err := conn.ExecContext(ctx, stmt, args...); err != nil {
			return nil, err
		}
	}
	rows, err := conn.QueryContext(ctx, `
		SELECT l.prefix, r.raw
		FROM prior_links l JOIN receipts r ON substr(r.chain_hash, 1, 32) = l.prefix`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var prefix, raw string
		if err := rows.Scan(&prefix, &raw); err != nil {
			rows.Close()
			return nil, err
		}
		// The scope is the format's, read from the receipt as stored: the
		// same rule the stream applies to the input.
		scope, err := verify.ChainScope([]byte(raw))
		if err != nil {
			continue // a stored line that is no receipt owns no chain hash
		}
		pl := out[prefix]
		pl.Found = true
		pl.Scope = scope
		out[prefix] = pl
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	rows, err = conn.QueryContext(ctx, `
		SELECT DISTINCT l.prefix
		FROM prior_links l JOIN receipts r ON substr(r.previous_hash, 1, 32) = l.prefix`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var prefix string
		if err := rows.Scan(&prefix); err != nil {
			return nil, err
		}
		pl := out[prefix]
		pl.Named = true
		out[prefix] = pl
	}
	return out, rows.Err()
}
