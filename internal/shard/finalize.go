package shard

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
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
// the judgments do not cover the records exactly (an *Error). The fold
// streams, shard by shard and part by part (see foldShard); the
// judgments and their checks are DuckDB's.
func Finalize(ctx context.Context, run *Run, opts FinalizeOptions, emit func(*verify.Result) error) (streamrun.Summary, error) {
	sums := make([]streamrun.MapSummary, len(run.shards))
	for i, s := range run.shards {
		sums[i] = s.m.Summary
	}
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), run.HistoryParts())
	if err != nil {
		return streamrun.Summary{}, err
	}
	defer done()
	source, err := loadJudgments(ctx, conn, opts.Judgments, -1)
	if err != nil {
		return streamrun.Summary{}, err
	}
	if err := checkJudgments(ctx, conn, source, run.shards); err != nil {
		return streamrun.Summary{}, err
	}
	f := streamrun.NewFolder(sums...)
	recordOf := run.recordOf()
	each := func(res *verify.Result, _ *streamrun.LineRef) error { return emit(res) }
	for _, s := range run.shards {
		if err := foldShard(ctx, conn, s, source, recordOf, f, each); err != nil {
			return streamrun.Summary{}, err
		}
	}
	return f.Summary(), nil
}

// FinalizeShard folds shard n of run alone, with the judgments in the
// Parquet file (or glob) judgments, which may hold every shard's rows or
// only shard n's: what Finalize gives for that shard's records, in the
// same order, and the summary of that shard (its files and lines, and its
// verdicts). run is from OpenShard. The shards' summaries add up to
// Finalize's (AddSummary). Nothing is emitted when the judgments do not
// cover shard n's records exactly; an *Error found while folding (a row of
// no record) comes after some results were emitted, so write them where
// a failure discards them. emit also gets where the result's line is in
// its input (nil for a file that could not be read).
func FinalizeShard(ctx context.Context, run *Run, n int64, judgments string, emit func(*verify.Result, *streamrun.LineRef) error) (streamrun.Summary, error) {
	var s *shardDir
	for _, d := range run.shards {
		if d.m.Shard == n {
			s = d
		}
	}
	if s == nil || run.only != n {
		return streamrun.Summary{}, fmt.Errorf("finalize: shard %d was not opened for a fold of its own", n)
	}
	var parts []string
	for _, p := range s.m.Parts {
		parts = append(parts, filepath.Join(s.dir, p.Name))
	}
	conn, done, err := judgmentsConn(ctx, run.engine, absAll(parts), History{})
	if err != nil {
		return streamrun.Summary{}, err
	}
	defer done()
	source, err := loadJudgments(ctx, conn, judgments, n)
	if err != nil {
		return streamrun.Summary{}, err
	}
	if err := checkJudgments(ctx, conn, source, []*shardDir{s}); err != nil {
		return streamrun.Summary{}, err
	}
	f := streamrun.NewFolder(s.m.Summary)
	if err := foldShard(ctx, conn, s, source, run.recordOf(), f, emit); err != nil {
		return streamrun.Summary{}, err
	}
	return f.Summary(), nil
}

// AddSummary is the summary of a run whose shards summarized as a and b.
func AddSummary(a, b streamrun.Summary) streamrun.Summary {
	s := streamrun.Summary{Reasons: map[verify.Reason]int64{}}
	s.Add(a)
	s.Add(b)
	return s
}

// recordOf turns an ord into the record's ordinal over the whole run:
// every earlier shard's records counted before it. An ord of no shard of
// the run, or past its shard's records, is an error.
func (r *Run) recordOf() func(int64) (uint64, error) {
	type span struct{ base, records uint64 }
	spans := map[int64]span{}
	var next uint64
	for _, s := range r.shards {
		spans[s.m.Shard] = span{next, s.m.Summary.Records}
		next += s.m.Summary.Records
	}
	return func(ord int64) (uint64, error) {
		sp, ok := spans[ord>>SeqBits]
		seq := uint64(ord & (1<<SeqBits - 1))
		if !ok || ord < 0 || seq >= sp.records {
			return 0, fmt.Errorf("ord %d is no record of the run", ord)
		}
		return sp.base + seq, nil
	}
}

// judgmentsConn opens a private DuckDB with shard_records over parts and
// history_keys over history, bounded by the run's engine limits
// (WithLimits): past its memory limit, the judgments' joins, aggregates
// and sorts spill to its temporary directory. A DuckDB that runs out of
// memory all the same fails with its error (OutOfMemory).
func judgmentsConn(ctx context.Context, e Engine, parts []string, history History) (*sql.Conn, func(), error) {
	if err := e.Limits.Check(); err != nil {
		return nil, nil, err
	}
	tmp, removeTmp, err := e.tempDir()
	if err != nil {
		return nil, nil, err
	}
	db, err := openDuckDB()
	if err != nil {
		removeTmp()
		return nil, nil, err
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		removeTmp()
		return nil, nil, err
	}
	done := func() { conn.Close(); db.Close(); removeTmp() }
	for _, stmt := range append(e.settings(tmp), duckDBViews(parts, history)...) {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			done()
			return nil, nil, fmt.Errorf("finalize: %w", err)
		}
	}
	return conn, done, nil
}

// loadJudgments makes the table judgments, sorted by ord and kind: the
// rows of the judgments file (or glob) arg, of shard n only when n >= 0,
// or, without arg, those of queries/shard/judgments.sql run here. It
// returns the name of the judgments for messages.
func loadJudgments(ctx context.Context, conn *sql.Conn, arg string, n int64) (string, error) {
	if arg == "" {
		if _, err := conn.ExecContext(ctx, "CREATE TEMP TABLE judgments AS SELECT * FROM ("+queries.Judgments()+") ORDER BY ord, kind"); err != nil {
			return "", fmt.Errorf("finalize: judgments: %w", err)
		}
		return "queries/shard/judgments.sql", nil
	}
	files, err := judgmentFiles(arg)
	if err != nil {
		return "", err
	}
	where := ""
	if n >= 0 {
		where = fmt.Sprintf(" WHERE ord BETWEEN %d AND %d", n<<SeqBits, n<<SeqBits+1<<SeqBits-1)
	}
	stmt := "CREATE TEMP TABLE judgments AS SELECT ord, kind, outcome, first_ord FROM read_parquet(" + files + ")" + where + " ORDER BY ord, kind"
	if _, err := conn.ExecContext(ctx, stmt); err != nil {
		return "", &Error{Reason: ReasonJudgments, Path: arg, Msg: "not the rows of queries/shard/judgments.sql: " + err.Error()}
	}
	return arg, nil
}

func absAll(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		a, err := filepath.Abs(p)
		if err != nil {
			a = p
		}
		out[i] = a
	}
	return out
}
