package shard

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// judgmentFiles is the DuckDB list of the Parquet files the --judgments
// argument names (a file or a glob); none is a Missing *Error, never an
// empty set of judgments.
func judgmentFiles(arg string) (string, error) {
	files, err := filepath.Glob(arg)
	if err != nil {
		return "", &Error{Reason: ReasonJudgments, Path: arg, Msg: err.Error()}
	}
	if len(files) == 0 {
		_, err := os.Stat(arg)
		msg := "no such file"
		if err != nil {
			msg = errText(err)
		}
		return "", &Error{Reason: ReasonMissing, Path: arg, Msg: "the judgments cannot be read: " + msg}
	}
	return duckDBFiles(files), nil
}

// judgmentOutcomes are the outcomes of each kind of judgment, as the SQL
// names them.
const judgmentOutcomes = `(j.kind = 'chain' AND j.outcome IN ('linked', 'absent', 'outside', 'break', 'fork_prior', 'fork'))
	OR (j.kind = 'nonce' AND j.outcome IN ('unique', 'replay', 'prior_replay', 'duplicate', 'prior_duplicate'))
	OR (j.kind = 'delivery' AND j.outcome IN ('duplicate', 'prior_duplicate'))`

// checkJudgments refuses judgments that do not judge every record with
// a link (a chain row) or a nonce (a nonce row) exactly once: counted
// per shard against the manifests, then row by row against the records.
// Together the two make a one-to-one match: as many distinct rows as the
// manifests count, each of a record that has the key. Delivery rows (a
// receipt delivered again) depend on the whole input, so no manifest
// counts them: each must be of a record with a chain hash, at most one a
// record, its first_ord a record with the same chain hash. A row of no
// record, an unknown kind or outcome, or a first_ord that is no record
// with the same key at or before it (by receipt_order: the first may be
// read after the records it comes before) is refused as well. source names the
// judgments in messages.
func checkJudgments(ctx context.Context, conn *sql.Conn, source string, shards []*shardDir) error {
	refuse := func(format string, a ...any) error {
		return &Error{Reason: ReasonJudgments, Path: source, Msg: fmt.Sprintf(format, a...) + ": the judgments must judge every record with a link or a nonce of every shard exactly once (run queries/shard/judgments.sql over exactly the run's parts: verify parts)"}
	}
	type count struct{ rows, distinct int64 }
	got := map[[2]string]count{}
	rows, err := conn.QueryContext(ctx, `SELECT CAST(j.ord >> 40 AS VARCHAR), j.kind, count(*), count(DISTINCT j.ord)
FROM judgments j GROUP BY ALL`)
	if err != nil {
		return refuse("%v", err)
	}
	for rows.Next() {
		var shard, kind sql.NullString
		var c count
		if err := rows.Scan(&shard, &kind, &c.rows, &c.distinct); err != nil {
			rows.Close()
			return refuse("%v", err)
		}
		got[[2]string{shard.String, kind.String}] = c
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return refuse("%v", err)
	}
	for _, s := range shards {
		n := fmt.Sprint(s.m.Shard)
		for _, k := range []struct {
			kind, what string
			want       int64
		}{{"chain", "a link", s.m.Links}, {"nonce", "a nonce", s.m.Nonces}} {
			c := got[[2]string{n, k.kind}]
			delete(got, [2]string{n, k.kind})
			switch {
			case c.rows != c.distinct:
				return refuse("shard %d (%s): %d %s rows for %d records: a record judged twice", s.m.Shard, s.dir, c.rows, k.kind, c.distinct)
			case c.rows != k.want:
				return refuse("shard %d (%s): %d %s rows, and its manifest counts %d records with %s", s.m.Shard, s.dir, c.rows, k.kind, k.want, k.what)
			}
		}
	}
	for _, s := range shards {
		k := [2]string{fmt.Sprint(s.m.Shard), "delivery"}
		if c, ok := got[k]; ok && c.rows != c.distinct {
			return refuse("shard %d (%s): %d delivery rows for %d records: a record judged twice", s.m.Shard, s.dir, c.rows, c.distinct)
		}
		delete(got, k)
	}
	for k, c := range got {
		return refuse("%d rows of kind %q for shard %q, which the run does not have", c.rows, k[1], k[0])
	}
	// shard_records holds the records of shards alone: a first_ord in
	// another shard (an earlier one, when a shard is folded alone) is
	// checked by the fold against that shard's record count.
	local := make([]string, len(shards))
	for i, s := range shards {
		local[i] = fmt.Sprint(s.m.Shard)
	}
	var ord int64
	var kind, outcome string
	err = conn.QueryRowContext(ctx, `SELECT j.ord, j.kind, COALESCE(j.outcome, 'NULL') FROM judgments j
LEFT JOIN shard_records r ON r.ord = j.ord
LEFT JOIN shard_records f ON f.ord = j.first_ord
WHERE r.ord IS NULL OR j.first_ord IS NULL OR j.first_ord < 0 OR f.receipt_order > r.receipt_order OR j.outcome IS NULL OR NOT (`+judgmentOutcomes+`)
	OR (f.ord IS NULL AND (j.first_ord >> 40) IN (`+strings.Join(local, ", ")+`))
	OR (j.kind = 'chain' AND (r.link_key IS NULL OR (f.ord IS NOT NULL AND f.link_key IS DISTINCT FROM r.link_key)))
	OR (j.kind = 'nonce' AND (r.nonce_key IS NULL OR (f.ord IS NOT NULL AND f.nonce_key IS DISTINCT FROM r.nonce_key)))
	OR (j.kind = 'delivery' AND (r.chain_key IS NULL OR (f.ord IS NOT NULL AND f.chain_key IS DISTINCT FROM r.chain_key)))
LIMIT 1`).Scan(&ord, &kind, &outcome)
	switch {
	case err == sql.ErrNoRows:
		return nil
	case err != nil:
		return refuse("%v", err)
	}
	return refuse("the %s row of ord %d (%s) judges no record with that key, names as first_ord no record with the same key at or before it, or has no such outcome", kind, ord, outcome)
}
