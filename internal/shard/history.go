package shard

import (
	"context"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/queries"
)

// The compact history is a directory holding one directory per run
// appended (named after the run's plan id), each holding the Parquet
// files of queries/shard/history_append.sql over that run, at any depth
// (one file, or one per bucket). A run's directory is written hidden
// (a name starting with a dot) and renamed once whole, so a reader sees
// a run's keys whole or not at all; hidden names are never read.

// HistoryKeyFiles lists the compact history in dir: the Parquet files of
// every run's directory, absolute, in path order, but for the directory
// of run itself (its keys are not earlier than its own receipts: a run
// judged again after its append), which skipped reports. A directory
// that cannot be read, or a file beside the runs' directories, is an
// *Error.
func HistoryKeyFiles(dir, run string) (files []string, skipped bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, false, &Error{Reason: ReasonMissing, Path: dir, Msg: "the history cannot be read: " + errText(err)}
	}
	for _, e := range entries {
		name := e.Name()
		switch {
		case strings.HasPrefix(name, "."):
			continue
		case !e.IsDir():
			return nil, false, &Error{Reason: ReasonManifest, Path: filepath.Join(dir, name), Msg: "a file beside the history's runs: each run's files go in a directory of its own, named after the run"}
		case name == run:
			skipped = true
			continue
		}
		err := filepath.WalkDir(filepath.Join(dir, name), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if strings.HasPrefix(d.Name(), ".") && p != filepath.Join(dir, name) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.IsDir() && strings.HasSuffix(d.Name(), ".parquet") {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, false, &Error{Reason: ReasonMissing, Path: filepath.Join(dir, name), Msg: "the history cannot be read: " + errText(err)}
		}
	}
	sort.Strings(files)
	files = absAll(files)
	if err := checkHistoryFiles(files); err != nil {
		return nil, false, err
	}
	return files, skipped, nil
}

// checkHistoryFiles refuses a history file without the column
// receipt_order: one appended before the history kept the receipts'
// order, against which a later run could not tell whether its receipt
// or the history's is the original; and one with a row without it: its
// chain owners appended before they kept theirs, against which a later
// run could not tell whether its chain's first receipt stands before
// the history's (a chain begun before the input, or a gap). The files'
// footers are read, and a file whose statistics do not say that the
// column has no NULL is read for it.
func checkHistoryFiles(files []string) error {
	if len(files) == 0 {
		return nil
	}
	db, err := openDuckDB()
	if err != nil {
		return err
	}
	defer db.Close()
	list := duckDBFiles(files)
	rows, err := db.Query("SELECT DISTINCT file_name FROM parquet_schema(" + list + ") EXCEPT " +
		"SELECT file_name FROM parquet_schema(" + list + ") WHERE name = 'receipt_order' ORDER BY file_name")
	if err != nil {
		return &Error{Reason: ReasonManifest, Path: files[0], Msg: "the history cannot be read: " + err.Error()}
	}
	defer rows.Close()
	if rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		return &Error{Reason: ReasonManifest, Path: name, Msg: "a history file without the receipts' order (receipt_order), " +
			"appended by an earlier build: " + rebuildHistory}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return checkHistoryOrders(db, list, files[0])
}

// rebuildHistory says how to rebuild a history an earlier build appended.
const rebuildHistory = "rebuild the history, appending each earlier run in order into a new directory " +
	"(verify finalize --plan plan-DAY.json --append-history NEW maps-DAY/*; docs/scale-out.md)"

// checkHistoryOrders refuses a file of list (a DuckDB list of the
// history's files, each with the column receipt_order, the first
// first) with a row whose
// receipt_order is NULL: the owners ('o', 'c') of a build that kept the
// order of links and nonces only. A file whose footer counts no NULL in
// every row group is not read further.
func checkHistoryOrders(db *sql.DB, list, first string) error {
	var maybe []string
	rows, err := db.Query("SELECT DISTINCT file_name FROM parquet_metadata(" + list + ") " +
		"WHERE path_in_schema = 'receipt_order' AND (stats_null_count IS NULL OR stats_null_count > 0) ORDER BY file_name")
	if err != nil {
		return &Error{Reason: ReasonManifest, Path: first, Msg: "the history cannot be read: " + err.Error()}
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return err
		}
		maybe = append(maybe, name)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(maybe) == 0 {
		return nil
	}
	var name sql.NullString
	err = db.QueryRow("SELECT min(filename) FROM read_parquet(" + sqltext.List(maybe) + ", filename = true) WHERE receipt_order IS NULL").Scan(&name)
	if err != nil {
		return &Error{Reason: ReasonManifest, Path: maybe[0], Msg: "the history cannot be read: " + err.Error()}
	}
	if name.Valid {
		return &Error{Reason: ReasonManifest, Path: name.String, Msg: "a history file whose chain owners have no order (receipt_order NULL), " +
			"appended by an earlier build: " + rebuildHistory}
	}
	return nil
}

// HistorySuperseded counts the predecessors named and the nonces used
// whose first receipt in run stands, in the receipts' order, before every
// receipt of the run's history naming or using them
// (queries/shard/history_superseded.sql): the judgments make run's
// receipt the first namer or the original, and the history's its forks
// or replays, whose verdicts their runs published already. Zero without
// history.
func HistorySuperseded(ctx context.Context, run *Run) (int64, error) {
	h := run.HistoryParts()
	if len(h.Records)+len(h.Keys) == 0 && h.Rocks == "" {
		return 0, nil
	}
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), h)
	if err != nil {
		return 0, err
	}
	defer done()
	var n int64
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM ("+queries.HistorySuperseded()+")").Scan(&n); err != nil {
		return 0, fmt.Errorf("history: %w", err)
	}
	return n, nil
}

// AppendHistory writes the rows queries/shard/history_append.sql gives
// run into the compact history in dir, on DuckDB: into the hidden
// directory .ID.attempt-XXXX (one of its own: an interrupted attempt's is
// never read), published as dir/ID, ID the run's plan id, 0755 with its
// files 0644 (as the umask leaves them): readable by an engine running
// as another user. A run appended
// already (dir/ID exists) is left as it is: appended reports false. dir
// is made if missing (the first run's append); a reader of the history
// refuses a missing one.
func AppendHistory(ctx context.Context, run *Run, dir string) (appended bool, err error) {
	id := run.Plan.ID
	if id == "" || strings.HasPrefix(id, ".") || strings.ContainsAny(id, `/\`) {
		return false, &Error{Reason: ReasonPlan, Path: run.Plan.Path, Msg: fmt.Sprintf("run id %q cannot name a directory of the history", id)}
	}
	final := filepath.Join(dir, id)
	if _, err := os.Stat(final); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, err
	}
	keys, _, err := HistoryKeyFiles(dir, id)
	if err != nil {
		return false, err
	}
	attempt, err := os.MkdirTemp(dir, "."+id+".attempt-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(attempt)
	// MkdirTemp makes it 0700: published so, an engine running as
	// another user could not read the run's keys.
	if err := os.Chmod(attempt, 0o755); err != nil {
		return false, err
	}
	// Keys are left out when dir holds them, not when another history
	// the run was judged with does: dir must hold them for the next runs.
	conn, done, err := judgmentsConn(ctx, run.engine, run.Parts(), History{Keys: keys})
	if err != nil {
		return false, err
	}
	defer done()
	out := filepath.Join(attempt, "keys.parquet")
	if _, err := conn.ExecContext(ctx, "COPY (SELECT "+HistoryColumns+" FROM ("+queries.HistoryAppend()+")) TO "+sqltext.String(filepath.ToSlash(out))+" (FORMAT parquet, ROW_GROUP_SIZE 65536)"); err != nil {
		return false, fmt.Errorf("history: %w", err)
	}
	if d, err := os.Open(attempt); err == nil {
		d.Sync() // the attempt's entries reach the disk before it is published
		d.Close()
	}
	if err := os.Rename(attempt, final); err != nil {
		if _, serr := os.Stat(final); serr == nil {
			return false, nil // another attempt published it meanwhile
		}
		return false, err
	}
	return true, nil
}
