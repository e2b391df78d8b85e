package shard

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// FinalizeOptions are what a finalize reads besides the map tasks'
// directories.
type FinalizeOptions struct {
	// Judgments, if set, is a Parquet file (or glob) holding the rows of
	// queries/shard/judgments.sql, run elsewhere over the same
	// directories (a distributed engine); otherwise the SQL runs here, on
	// DuckDB.
	Judgments string
	// History are the directories of runs finalized before: their
	// receipts are earlier than this run's, so a link to one resolves, a
	// link one already names is a fork, and a nonce one used is a replay.
	History []string
}

// Finalize folds the judgments of chains and nonces into the records of
// the map tasks' directories and calls emit with each final result, in
// the order of one run over the whole input: by shard number, then in
// each shard's order. The summary is that run's.
func Finalize(ctx context.Context, dirs []string, opts FinalizeOptions, emit func(*verify.Result) error) (stream.Summary, error) {
	shards, err := readShards(dirs)
	if err != nil {
		return stream.Summary{}, err
	}
	// The ordinal over the whole run of the first record of each shard.
	base := map[int64]uint64{}
	var next uint64
	sums := make([]stream.MapSummary, len(shards))
	for i, s := range shards {
		base[s.m.Shard] = next
		next += s.m.Summary.Records
		sums[i] = s.m.Summary
	}
	var history []*shardDir
	if len(opts.History) > 0 {
		if history, err = readShards(opts.History); err != nil {
			return stream.Summary{}, err
		}
	}

	db, err := openDuckDB()
	if err != nil {
		return stream.Summary{}, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return stream.Summary{}, err
	}
	defer conn.Close()
	for _, stmt := range views(shards, history) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return stream.Summary{}, fmt.Errorf("finalize: %w", err)
		}
	}
	judgments := "CREATE TEMP TABLE judgments AS " + queries.Judgments
	if opts.Judgments != "" {
		judgments = "CREATE VIEW judgments AS SELECT * FROM read_parquet(" + sqlString(filepath.ToSlash(opts.Judgments)) + ")"
	}
	if _, err := conn.ExecContext(ctx, judgments); err != nil {
		return stream.Summary{}, fmt.Errorf("finalize: judgments: %w", err)
	}

	rows, err := conn.QueryContext(ctx, `SELECT r.ord, r.state, j.kind, j.outcome, j.first_ord
FROM shard_records r LEFT JOIN judgments j ON j.ord = r.ord
ORDER BY r.ord, j.kind NULLS FIRST`)
	if err != nil {
		return stream.Summary{}, fmt.Errorf("finalize: %w", err)
	}
	defer rows.Close()
	recordOf := func(ord int64) (uint64, error) {
		b, ok := base[ord>>SeqBits]
		if !ok || ord < 0 {
			return 0, fmt.Errorf("finalize: judgment names record %d of no shard given", ord)
		}
		return b + uint64(ord&(1<<SeqBits-1)), nil
	}
	f := stream.NewFolder(sums...)
	var (
		cur   int64 = -1
		state []byte
		js    []stream.Judgment
	)
	fold := func() error {
		if cur < 0 {
			return nil
		}
		res, err := f.Fold(state, js)
		if err != nil {
			return fmt.Errorf("finalize: %w", err)
		}
		return emit(res)
	}
	for rows.Next() {
		var (
			ord           int64
			st            []byte
			kind, outcome *string
			firstOrd      *int64
		)
		if err := rows.Scan(&ord, &st, &kind, &outcome, &firstOrd); err != nil {
			return stream.Summary{}, fmt.Errorf("finalize: %w", err)
		}
		if ord != cur {
			if err := fold(); err != nil {
				return stream.Summary{}, err
			}
			cur, state, js = ord, st, js[:0]
		}
		if kind != nil && outcome != nil && firstOrd != nil {
			first, err := recordOf(*firstOrd)
			if err != nil {
				return stream.Summary{}, err
			}
			js = append(js, stream.Judgment{Kind: *kind, Outcome: *outcome, First: first})
		}
	}
	if err := rows.Err(); err != nil {
		return stream.Summary{}, fmt.Errorf("finalize: %w", err)
	}
	if err := fold(); err != nil {
		return stream.Summary{}, err
	}
	return f.Summary(), nil
}

// shardDir is one map task's directory and its manifest.
type shardDir struct {
	dir string
	m   *manifest
}

// readShards reads the manifests of dirs, in shard order; two
// directories of one shard number are refused.
func readShards(dirs []string) ([]*shardDir, error) {
	var out []*shardDir
	seen := map[int64]string{}
	for _, d := range dirs {
		m, err := readManifest(d)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[m.Shard]; ok {
			return nil, fmt.Errorf("%s and %s are both shard %d", other, d, m.Shard)
		}
		seen[m.Shard] = d
		out = append(out, &shardDir{dir: d, m: m})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].m.Shard < out[j].m.Shard })
	return out, nil
}

// views are the DuckDB statements that make the tables the judgment SQL
// reads: shard_records over the shards' parts, history_records over the
// history's (empty without one).
func views(shards, history []*shardDir) []string {
	parts := func(ss []*shardDir) string {
		var files []string
		for _, s := range ss {
			for _, p := range s.m.Parts {
				files = append(files, sqlString(filepath.ToSlash(filepath.Join(s.dir, p))))
			}
		}
		return "[" + strings.Join(files, ", ") + "]"
	}
	out := []string{"CREATE VIEW shard_records AS SELECT * FROM read_parquet(" + parts(shards) + ")"}
	if len(history) == 0 {
		return append(out, "CREATE TEMP TABLE history_records (ord BIGINT, chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR)")
	}
	return append(out, "CREATE VIEW history_records AS SELECT ord, chain_key, link_key, scope_key, nonce_key FROM read_parquet("+parts(history)+")")
}
