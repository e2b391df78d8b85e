package shard

import (
	"context"
	"fmt"

	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// FinalizeOptions are what a finalize reads besides the run's map
// directories.
type FinalizeOptions struct {
	// Judgments, if set, is a Parquet file (or glob) holding the rows of
	// queries/shard/judgments.sql, run elsewhere over the same
	// directories (a distributed engine); otherwise the SQL runs here, on
	// DuckDB. Either way the rows must judge every record with a link or a
	// nonce exactly once, as the manifests count them.
	Judgments string
}

// Finalize folds the judgments of chains and nonces into the records of
// the run's map directories and calls emit with each final result, in
// the order of one run over the whole input: by shard number, then in
// each shard's order. The summary is that run's. Nothing is emitted when
// the judgments do not cover the records exactly (an *Error).
func Finalize(ctx context.Context, run *Run, opts FinalizeOptions, emit func(*verify.Result) error) (stream.Summary, error) {
	shards := run.shards
	// The ordinal over the whole run of the first record of each shard.
	base := map[int64]uint64{}
	var next uint64
	sums := make([]stream.MapSummary, len(shards))
	for i, s := range shards {
		base[s.m.Shard] = next
		next += s.m.Summary.Records
		sums[i] = s.m.Summary
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
	for _, stmt := range duckDBViews(run.Parts(), run.HistoryParts()) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return stream.Summary{}, fmt.Errorf("finalize: %w", err)
		}
	}
	judgments, source := "CREATE TEMP TABLE judgments AS "+queries.Judgments(), "queries/shard/judgments.sql"
	if opts.Judgments != "" {
		files, err := judgmentFiles(opts.Judgments)
		if err != nil {
			return stream.Summary{}, err
		}
		judgments, source = "CREATE TEMP TABLE judgments AS SELECT ord, kind, outcome, first_ord FROM read_parquet("+files+")", opts.Judgments
	}
	if _, err := conn.ExecContext(ctx, judgments); err != nil {
		if opts.Judgments != "" {
			return stream.Summary{}, &Error{Reason: ReasonJudgments, Path: opts.Judgments, Msg: "not the rows of queries/shard/judgments.sql: " + err.Error()}
		}
		return stream.Summary{}, fmt.Errorf("finalize: judgments: %w", err)
	}
	if err := checkJudgments(ctx, conn, source, shards); err != nil {
		return stream.Summary{}, err
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
