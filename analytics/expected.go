package analytics

import (
	"cmp"
	"context"
	"crypto/sha256"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"slices"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/verify/toolschema"
)

// addExpectedTools adds the schemas' tools to expected_tools, a tool
// already there left as it is. A set already added (the same tools, by
// the SHA-256 in expected_tool_sets) costs one lookup: the nightly job
// passes the same --schemas every night. A new set is staged with DuckDB's
// appender and added in one INSERT ... SELECT, which takes a second for
// 100,000 tools where one INSERT per tool took minutes.
func addExpectedTools(ctx context.Context, conn *sql.Conn, set *toolschema.Set) error {
	tools := set.Tools()
	if len(tools) == 0 {
		return nil
	}
	sum := toolSetSHA256(tools)
	var one int
	err := conn.QueryRowContext(ctx, "SELECT 1 FROM expected_tool_sets WHERE set_sha256 = $1", sum).Scan(&one)
	if err == nil {
		return nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return err
	}
	const staged = "staged_expected_tools"
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE "+staged+" (server VARCHAR, tool_name VARCHAR, fingerprint VARCHAR)"); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS temp.main."+staged)
	err = conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a DuckDB connection")
		}
		a, err := duckdb.NewAppender(c, "temp", "main", staged)
		if err != nil {
			return err
		}
		for i, t := range tools {
			if i%4096 == 0 && ctx.Err() != nil {
				a.Close()
				return ctx.Err()
			}
			if err := a.AppendRow(t.Server, t.Name, t.Fingerprint); err != nil {
				a.Close()
				return err
			}
		}
		return a.Close()
	})
	if err != nil {
		return err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO expected_tools (server, tool_name, fingerprint)
SELECT DISTINCT s.server, s.tool_name, s.fingerprint FROM temp.main.`+staged+` s
WHERE NOT EXISTS (SELECT 1 FROM expected_tools e WHERE e.server = s.server AND e.tool_name = s.tool_name AND e.fingerprint = s.fingerprint)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO expected_tool_sets (set_sha256, tools) VALUES ($1, $2) ON CONFLICT DO NOTHING", sum, len(tools)); err != nil {
		return err
	}
	return tx.Commit()
}

// toolSetSHA256 is the SHA-256 of the tools' (server, name, fingerprint)
// rows in sorted order, each string length-prefixed: the same set gives
// the same hash whatever the order of files and tools.
func toolSetSHA256(tools []toolschema.Tool) string {
	tools = slices.Clone(tools)
	slices.SortFunc(tools, func(a, b toolschema.Tool) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Fingerprint, b.Fingerprint))
	})
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, t := range tools {
		for _, s := range []string{t.Server, t.Name, t.Fingerprint} {
			h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
			h.Write([]byte(s))
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
