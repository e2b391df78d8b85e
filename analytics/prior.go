package analytics

import (
	"context"
	"database/sql"
	"strings"

	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// archivePrior is the database as the stream's Prior: every receipt loaded
// before, so that a load judges chains and nonces against the whole
// archive as one load of everything would. A chain crossing from an
// earlier load into the new files (a session that spans midnight, say)
// resolves; a new receipt naming a predecessor that an archived receipt
// already names is a fork; a nonce an archived receipt of the issuer used
// is a replay.
type archivePrior struct{ db *sql.DB }

// priorChunk is how many keys one INSERT carries.
const priorChunk = 500

// withKeys runs fn on one connection holding the temporary table
// prior_keys (key VARCHAR) filled with keys; it does nothing when no
// receipt is stored.
func (p archivePrior) withKeys(ctx context.Context, keys []string, fn func(conn *sql.Conn) error) error {
	conn, err := p.db.Conn(ctx) // the temporary table lives on one connection
	if err != nil {
		return err
	}
	defer conn.Close()
	var loaded int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM receipts LIMIT 1)").Scan(&loaded); err != nil || loaded == 0 {
		return err
	}
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE prior_keys (key VARCHAR)"); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS prior_keys")
	for start := 0; start < len(keys); start += priorChunk {
		chunk := keys[start:min(start+priorChunk, len(keys))]
		args := make([]any, len(chunk))
		for i, s := range chunk {
			args[i] = s
		}
		stmt := "INSERT INTO prior_keys VALUES " + strings.TrimSuffix(strings.Repeat("(?),", len(chunk)), ",")
		if _, err := conn.ExecContext(ctx, stmt, args...); err != nil {
			return err
		}
	}
	return fn(conn)
}

func (p archivePrior) Links(ctx context.Context, prefixes []string) (map[string]stream.PriorLink, error) {
	out := map[string]stream.PriorLink{}
	err := p.withKeys(ctx, prefixes, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT l.key, r.issuer_id, r.org_id, r.agent_id, r.session_id
			FROM prior_keys l JOIN receipts r ON substr(r.chain_hash, 1, 32) = l.key`)
		if err != nil {
			return err
		}
		for rows.Next() {
			var prefix string
			var issuer, org, agent, session sql.NullString
			if err := rows.Scan(&prefix, &issuer, &org, &agent, &session); err != nil {
				rows.Close()
				return err
			}
			pl := out[prefix]
			pl.Found = true
			pl.Scope = verify.ScopeKeyOf(issuer.String, org.String, agent.String, session.String)
			out[prefix] = pl
		}
		if err := rows.Close(); err != nil {
			return err
		}
		rows, err = conn.QueryContext(ctx, `
			SELECT DISTINCT l.key
			FROM prior_keys l JOIN receipts r ON substr(r.previous_hash, 1, 32) = l.key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var prefix string
			if err := rows.Scan(&prefix); err != nil {
				return err
			}
			pl := out[prefix]
			pl.Named = true
			out[prefix] = pl
		}
		return rows.Err()
	})
	return out, err
}

func (p archivePrior) Nonces(ctx context.Context, digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := p.withKeys(ctx, digests, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT DISTINCT k.key FROM prior_keys k JOIN receipts r ON r.nonce_key = k.key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				return err
			}
			out[d] = true
		}
		return rows.Err()
	})
	return out, err
}
