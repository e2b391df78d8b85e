package shard

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify/reason"
)

// ErrWrite wraps the failure to write a judgments directory's files.
var ErrWrite = errors.New("the judgments cannot be written")

// judgmentFile names a shard's file in a judgments directory.
var judgmentFile = regexp.MustCompile(`^shard-[0-9]+\.parquet$`)

// JudgmentsFile is the file of shard n in a judgments directory that
// WriteJudgments wrote: what the fold of shard n reads (verify finalize
// --judgments DIR/shard-N.parquet --shard N).
func JudgmentsFile(dir string, n int64) string {
	return filepath.Join(dir, fmt.Sprintf("shard-%d.parquet", n))
}

// WriteJudgments runs queries/shard/judgments.sql over run on DuckDB,
// with the run's history, checks its rows as finalize does, and
// publishes them in dir, one file a shard of the plan
// (JudgmentsFile): every shard has its file, one without rows when
// nothing of the shard is judged (no link and no nonce), so that each
// fold names its own file and a missing file is always a failure. The
// files are written into a hidden directory beside dir and published by
// renaming it to dir. A dir that holds a judgments directory's files and
// nothing else (an earlier attempt of this step, or of another run) is
// replaced: the judgments are rerun whole, never appended. A dir that
// holds anything else is refused (ReasonPublished).
//
// With verdicts not "", queries/shard/fold.sql then folds the same
// judgments into every record's verdict, and its rows are published in
// verdicts the same way, one shard-N.parquet a shard (fold.sql's
// columns), before dir.
func WriteJudgments(ctx context.Context, run *Run, dir, verdicts string) error {
	outs := []string{dir}
	if verdicts != "" {
		outs = []string{verdicts, dir}
	}
	for _, d := range outs {
		if err := checkShardFiles(d, "a judgments directory"); err != nil {
			return err
		}
	}
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), run.HistoryParts())
	if err != nil {
		return err
	}
	defer done()
	source, err := loadJudgments(ctx, conn, "", -1)
	if err != nil {
		return err
	}
	if err := checkJudgments(ctx, conn, source, run.shards); err != nil {
		return err
	}
	if verdicts != "" {
		for _, stmt := range run.FoldShards("duckdb") {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				return fmt.Errorf("queries/shard/fold.sql: fold_shards: %w", err)
			}
		}
		if _, err := conn.ExecContext(ctx, "CREATE TEMP TABLE verdicts AS "+queries.Fold()); err != nil {
			return fmt.Errorf("queries/shard/fold.sql: %w", err)
		}
		if err := publishShardFiles(ctx, conn, run, verdicts, "SELECT * FROM verdicts WHERE ord BETWEEN %d AND %d ORDER BY ord"); err != nil {
			return err
		}
	}
	return publishShardFiles(ctx, conn, run, dir, "SELECT * FROM judgments WHERE ord BETWEEN %d AND %d ORDER BY ord, kind")
}

// FoldSummary is the summary of the whole run whose verdicts
// WriteJudgments published in dir (one shard-N.parquet a shard of run):
// queries/shard/fold_summary.sql over them on DuckDB, what Finalize's
// summary counts.
func FoldSummary(ctx context.Context, run *Run, dir string) (streamrun.Summary, error) {
	sum := streamrun.Summary{Reasons: map[reason.Reason]int64{}}
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), History{})
	if err != nil {
		return sum, err
	}
	defer done()
	files := make([]string, len(run.shards))
	for i, s := range run.shards {
		files[i] = sqltext.String(filepath.ToSlash(JudgmentsFile(dir, s.m.Shard)))
	}
	for _, stmt := range append(run.FoldShards("duckdb"), "CREATE TEMP VIEW verdicts AS SELECT * FROM read_parquet(["+strings.Join(files, ", ")+"])") {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return sum, fmt.Errorf("queries/shard/fold_summary.sql: %w", err)
		}
	}
	rows, err := conn.QueryContext(ctx, "SELECT name, value FROM ("+queries.FoldSummary()+") WHERE shard = -1")
	if err != nil {
		return sum, fmt.Errorf("queries/shard/fold_summary.sql: %w", err)
	}
	defer rows.Close()
	counts := map[string]*int64{"lines": &sum.Lines, "blank": &sum.Blank, "receipts": &sum.Receipts, "pass": &sum.Pass, "fail": &sum.Fail,
		"incomplete": &sum.Incomplete, "unreadable": &sum.Unreadable, "unknown_format": &sum.UnknownFormat, "duplicates": &sum.Duplicates, "chains_outside": &sum.ChainsOutside}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			return sum, err
		}
		switch p, ok := counts[name]; {
		case ok:
			*p = n
		case name == "files":
			sum.Files = int(n)
		case name == "files_unreadable":
			sum.FilesFailed = int(n)
		case strings.HasPrefix(name, "reasons."):
			sum.Reasons[reason.Reason(strings.TrimPrefix(name, "reasons."))] = n
		}
	}
	return sum, rows.Err()
}

// checkShardFiles refuses a dir that holds anything but shard-N.parquet
// files: what names such a directory in the message.
func checkShardFiles(dir, what string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !judgmentFile.MatchString(e.Name()) {
			return &Error{Reason: ReasonPublished, Path: dir, Msg: fmt.Sprintf("holds %s: not %s (only shard-N.parquet files), left as it is", e.Name(), what)}
		}
	}
	return nil
}

// publishShardFiles writes, for every shard of run, the rows of query
// (a format of the shard's first and last ord) as dir/shard-N.parquet,
// into a hidden directory beside dir renamed to dir once whole; an
// earlier dir is replaced.
func publishShardFiles(ctx context.Context, conn *sql.Conn, run *Run, dir, query string) error {
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	attempt, err := os.MkdirTemp(parent, "."+base+".attempt-")
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	defer os.RemoveAll(attempt)
	if err := os.Chmod(attempt, 0o755); err != nil { // readable by an engine of another user, as a published map directory
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	for _, s := range run.shards {
		lo := s.m.Shard << SeqBits
		out := JudgmentsFile(attempt, s.m.Shard)
		stmt := fmt.Sprintf("COPY ("+query+") TO %s (FORMAT parquet)", lo, lo+1<<SeqBits-1, sqltext.String(filepath.ToSlash(out)))
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("%w: shard %d: %w", ErrWrite, s.m.Shard, err)
		}
		if err := syncFile(out); err != nil {
			return fmt.Errorf("%w: %w", ErrWrite, err)
		}
	}
	syncFile(attempt) // the attempt's entries reach the disk where the system allows it
	// An earlier output is moved aside, then removed once this one is
	// in its place: a reader sees the one or the other, whole.
	old := ""
	if _, err := os.Stat(dir); err == nil {
		old = attempt + ".old"
		if err := os.Rename(dir, old); err != nil {
			return fmt.Errorf("%w: %w", ErrWrite, err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(attempt, dir); err != nil {
		if old != "" {
			os.Rename(old, dir)
		}
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	return nil
}

// syncFile flushes the file or directory at path to the disk.
func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrWrite, err)
	}
	defer f.Close()
	return f.Sync()
}
