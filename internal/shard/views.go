package shard

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// Engines are the engines Views writes statements for.
func Engines() []string { return []string{"duckdb", "clickhouse"} }

// History is what the judgments read as history_keys: the map
// directories' parts of earlier runs (Records, every record, made into
// keys as the judgments read them) and the compact history's files
// (Keys, the rows of queries/shard/history_append.sql), or neither; or,
// on ClickHouse only, the same rows kept keyed in a RocksDB directory
// (Rocks, queries/shard/history_rocks_put.sql), probed key by key.
type History struct {
	Records, Keys []string
	Rocks         string
}

// historyKinds are the kinds of history_keys made from records: each
// key column of the records with the kind the append gives it, the scope
// of an owner, and the receipt's order as the append gives it (an
// expression over the records).
var historyKinds = []struct{ kind, key, scope, order, where string }{
	{"o", "chain_key", "scope_key", ownerOrder, " AND NOT claim"},
	{"c", "chain_key", "scope_key", ownerOrder, " AND claim"},
	{"l", "link_key", "", "unhex(receipt_order)", " AND NOT claim"},
	{"n", "nonce_key", "", "unhex(receipt_order)", ""},
}

// ownerOrder is the receipt_order of an owner made from its record, as
// queries/shard/history_append.sql gives it: a genesis (it names no
// predecessor) 24 zero bytes, before every receipt of its chain, any
// other receipt its order.
const ownerOrder = "CASE WHEN link_key IS NULL THEN unhex('" + genesisOrder + "') ELSE unhex(receipt_order) END"

// genesisOrder is the order in hex that history_append.sql gives a
// genesis's owner row: before every receipt's.
const genesisOrder = "000000000000000000000000000000000000000000000000"

// HistoryColumns are the columns of history_keys, and of the compact
// history's files, in order.
const HistoryColumns = "kind, k, scope, receipt_order"

// Views are the statements that make, on engine, the two tables
// queries/shard/judgments.sql and history_append.sql read over exactly
// the given files: the view shard_records over the run's parts, and
// history_keys, the rows of the history's files (the view history_all)
// that the run's keys hit, read once into a table (historyHits), or an
// empty table without history.
// No glob: a file an earlier attempt or another run left beside them is
// never read.
func Views(engine string, parts []string, history History) ([]string, error) {
	switch engine {
	case "duckdb":
		if history.Rocks != "" {
			return nil, fmt.Errorf("a RocksDB history is read by ClickHouse only (EmbeddedRocksDB)")
		}
		return duckDBViews(parts, history), nil
	case "clickhouse":
		return clickHouseViews(parts, history), nil
	}
	return nil, fmt.Errorf("no engine %q (known: %s)", engine, strings.Join(Engines(), ", "))
}

// duckDBViews: read_parquet over the list of files. A compact history
// written by ClickHouse (its Strings as binary) has kind as a BLOB: read
// as VARCHAR.
func duckDBViews(parts []string, history History) []string {
	out := []string{"CREATE VIEW shard_records AS SELECT * FROM read_parquet(" + duckDBFiles(parts) + ")",
		"CREATE VIEW fold_records AS SELECT " + FoldColumns + " FROM read_parquet(" + duckDBFiles(parts) + ")"}
	var sel []string
	if len(history.Records) > 0 {
		for _, k := range historyKinds {
			sel = append(sel, "SELECT "+sqltext.String(k.kind)+" AS kind, unhex("+k.key+") AS k, "+scopeOf(k.scope)+" AS scope, "+k.order+" AS receipt_order FROM read_parquet("+duckDBFiles(history.Records)+") WHERE "+k.key+" IS NOT NULL"+k.where)
		}
	}
	if len(history.Keys) > 0 {
		sel = append(sel, "SELECT CAST(kind AS VARCHAR) AS kind, CAST(k AS BLOB) AS k, CAST(scope AS BLOB) AS scope, CAST(receipt_order AS BLOB) AS receipt_order FROM read_parquet("+duckDBFiles(history.Keys)+")")
	}
	if len(sel) == 0 {
		return append(out, "CREATE TEMP TABLE history_keys (kind VARCHAR, k BLOB, scope BLOB, receipt_order BLOB)")
	}
	return append(out, "CREATE VIEW history_all AS "+strings.Join(sel, " UNION ALL "),
		"CREATE TEMP TABLE history_keys AS "+historyHits)
}

// clickHouseSettings are the session settings the judgments need on
// ClickHouse, which the views of Views("clickhouse", ...) begin with:
// an outer join's missing side is NULL (without it an absent owner
// reads as an empty string and an absent link as a break), and a plan
// over many file() reads joined by UNION ALL (a history of many runs)
// is not stopped by the optimizer's limit on its steps (10,000 by
// default: "Too many optimizations applied to query plan" at about 100
// file() reads).
var clickHouseSettings = []string{
	"SET join_use_nulls = 1",
	clickHouseOptimizations,
}

// clickHouseOptimizations raises the optimizer's limit on a query
// plan's steps past what thousands of file() reads take.
const clickHouseOptimizations = "SET query_plan_max_optimizations_to_apply = 1000000"

// clickHouseLakeSettings are the session settings the finding queries
// of queries/ need over the report's tables on ClickHouse
// (docs/engines.md says why each), which the views of
// TableViews("clickhouse", ...) begin with: timestamps in UTC, an outer
// join's missing side NULL, CAST(NULL AS DATE) (the all-days
// parameter) a NULL date, the receipts' day=YYYY-MM-DD directories
// read as the column day, and the optimizer's limit raised.
var clickHouseLakeSettings = []string{
	"SET session_timezone = 'UTC'",
	"SET join_use_nulls = 1",
	"SET cast_keep_nullable = 1",
	"SET use_hive_partitioning = 1",
	clickHouseOptimizations,
}

// clickHouseQuerySize is ClickHouse's default max_query_size, the
// longest statement it parses (256 KiB).
const clickHouseQuerySize = 256 << 10

// clickHouseViews: the statements of clickHouseTables after the
// session's settings, clickHouseSettings and the statements' size
// (clickHouseSession).
func clickHouseViews(parts []string, history History) []string {
	return clickHouseSession(clickHouseSettings, clickHouseTables(parts, history))
}

// clickHouseSession is stmts after settings, and max_query_size raised
// to twice the longest statement's bytes when that passes the default
// (a list of about 2,000 files).
func clickHouseSession(settings, stmts []string) []string {
	out := append([]string{}, settings...)
	longest := 0
	for _, s := range stmts {
		longest = max(longest, len(s))
	}
	if longest > clickHouseQuerySize {
		out = append(out, fmt.Sprintf("SET max_query_size = %d", 2*longest))
	}
	return append(out, stmts...)
}

// clickHouseTables are the statements of clickHouseViews without the
// settings. Every list of files is read by clickHouseFiles, the parts
// and the compact history's files under the directory that holds
// their shard's or run's directory (maps/shard-N/records-NNNNN.parquet,
// history/ID/keys.parquet), and each kind of the history's records
// from one read of them.
func clickHouseTables(parts []string, history History) []string {
	out := []string{"CREATE TABLE shard_records ENGINE = Memory AS SELECT " + RecordColumns + " FROM (" + clickHouseFiles(RecordColumns, parts, 2) + ")",
		"CREATE VIEW fold_records AS " + clickHouseFiles(FoldColumns, parts, 2)}
	if history.Rocks != "" {
		return append(out, RocksTable(history.Rocks), "CREATE TABLE history_keys ENGINE = Memory AS "+rocksHits)
	}
	var sel []string
	if len(history.Records) > 0 {
		records := clickHouseFiles(RecordColumns, history.Records, 2)
		for _, k := range historyKinds {
			sel = append(sel, "SELECT "+sqltext.String(k.kind)+" AS kind, unhex("+k.key+") AS k, "+scopeOf(k.scope)+" AS scope, "+k.order+" AS receipt_order FROM ("+records+") WHERE "+k.key+" IS NOT NULL"+k.where)
		}
	}
	if len(history.Keys) > 0 {
		sel = append(sel, clickHouseFiles(HistoryColumns, history.Keys, 2))
	}
	if len(sel) == 0 {
		return append(out, "CREATE TABLE history_keys (kind Nullable(String), k Nullable(String), scope Nullable(String), receipt_order Nullable(String)) ENGINE = Memory")
	}
	return append(out, "CREATE VIEW history_all AS "+strings.Join(sel, " UNION ALL "),
		"CREATE TABLE history_keys ENGINE = Memory AS "+historyHits)
}

// historyHits reads the whole history (the view history_all) once, for
// the run's keys: its rows of a key some record of the run has (as chain
// hash, link or nonce), and the chain scopes of the run's records that
// an owner of the history has, once each (kind 'o', no key), each with
// the least receipt_order of its rows (NULL, before every receipt, when
// one has none). This is
// all queries/shard/judgments.sql and history_append.sql read of
// history_keys, so they read a table the size of the run's keys, which
// an engine that inlines each use of a view (ClickHouse) would otherwise
// scan once per use.
const historyHits = `SELECT x.kind AS kind, x.k AS k, x.scope AS scope, ` +
	`CASE WHEN count(*) = count(x.receipt_order) THEN min(x.receipt_order) END AS receipt_order ` +
	`FROM (SELECT h.kind AS kind, CASE WHEN h.k IN (` + runKeys + `) THEN h.k END AS k, h.scope AS scope, h.receipt_order AS receipt_order ` +
	`FROM history_all h ` +
	`WHERE h.k IN (` + runKeys + `) OR (h.kind = 'o' AND h.scope IN (SELECT unhex(r.scope_key) FROM shard_records r WHERE r.scope_key IS NOT NULL))) x ` +
	`GROUP BY x.kind, x.k, x.scope`

// RocksTable is the statement that opens the RocksDB history in dir on
// ClickHouse as the table history_rocks, which
// queries/shard/history_rocks_put.sql writes: one row a key, key the
// kind ('o', 'c', 'l', 'n' as in history_keys, 's' a chain scope some owner
// has) followed by the key's 16 bytes, scope an owner's chain scope,
// receipt_order the least of the receipts of a key or, under 's', of the
// owners of a chain scope. It
// opens the store for writing (RocksDB lets one process at a time hold
// it), so that one session can judge the run and, once it is
// finalized, put its keys.
func RocksTable(dir string) string {
	return "CREATE TABLE history_rocks (key String, scope Nullable(String), receipt_order Nullable(String)) ENGINE = EmbeddedRocksDB(0, " +
		clickHouseString(filepath.ToSlash(dir)) + ", 0) PRIMARY KEY key"
}

// rocksHits are historyHits read from the RocksDB history by point
// lookups of the run's keys (EmbeddedRocksDB reads only the keys of a
// key IN (...) filter), so their cost follows the run's keys, not the
// history: the owners of its chain hashes and links, the links it names,
// the nonces it uses, and, as owner rows without a key, its chain
// scopes that an owner of the history has, with their owners' least
// receipt_order. judgments.sql and
// history_append.sql read nothing else of history_keys, so their rows
// are those of the same history read from its files.
const rocksHits = `SELECT DISTINCT substring(h.key, 1, 1) AS kind, substring(h.key, 2) AS k, h.scope AS scope, h.receipt_order AS receipt_order ` +
	`FROM history_rocks h WHERE h.key IN (` +
	`SELECT concat('o', unhex(r.chain_key)) FROM shard_records r WHERE r.chain_key IS NOT NULL ` +
	`UNION ALL SELECT concat('o', unhex(r.link_key)) FROM shard_records r WHERE r.link_key IS NOT NULL ` +
	`UNION ALL SELECT concat('c', unhex(r.chain_key)) FROM shard_records r WHERE r.chain_key IS NOT NULL ` +
	`UNION ALL SELECT concat('c', unhex(r.link_key)) FROM shard_records r WHERE r.link_key IS NOT NULL ` +
	`UNION ALL SELECT concat('l', unhex(r.link_key)) FROM shard_records r WHERE r.link_key IS NOT NULL ` +
	`UNION ALL SELECT concat('n', unhex(r.nonce_key)) FROM shard_records r WHERE r.nonce_key IS NOT NULL) ` +
	`UNION ALL SELECT DISTINCT 'o' AS kind, NULL AS k, substring(h.key, 2) AS scope, h.receipt_order AS receipt_order ` +
	`FROM history_rocks h WHERE h.key IN (SELECT concat('s', unhex(r.scope_key)) FROM shard_records r WHERE r.scope_key IS NOT NULL)`

// runKeys are the run's chain hashes, links and nonces, as bytes.
const runKeys = `SELECT unhex(r.chain_key) FROM shard_records r WHERE r.chain_key IS NOT NULL ` +
	`UNION ALL SELECT unhex(r.link_key) FROM shard_records r WHERE r.link_key IS NOT NULL ` +
	`UNION ALL SELECT unhex(r.nonce_key) FROM shard_records r WHERE r.nonce_key IS NOT NULL`

// scopeOf is the scope column of a kind made from records: the unhexed
// scope of an owner, else NULL.
func scopeOf(col string) string {
	if col == "" {
		return "NULL"
	}
	return "unhex(" + col + ")"
}

// duckDBFiles is a list of files for DuckDB's read_parquet.
func duckDBFiles(files []string) string {
	slashed := make([]string, len(files))
	for i, f := range files {
		slashed[i] = filepath.ToSlash(f)
	}
	return sqltext.List(slashed)
}

// clickHouseFiles reads cols from exactly files with as few file()
// calls as it can: one for the files under each directory levels up
// from them (the directory that holds the shards' directories: a run's
// maps/, of shard-N/records-NNNNN.parquet, levels 2; its folds/, of
// shard-N/receipts/day=YYYY-MM-DD/part-N.parquet, levels 4), naming
// them in a {a,b,...} list of ClickHouse's globs, which matches exactly
// the names listed (the directory ClickHouse lists to find them is
// then the run's, never one above it; "." for paths relative to the
// current directory); a file whose path holds a glob's special
// character is read by a file() of its own. The calls are joined by
// UNION ALL. A file() per file would cost ClickHouse a plan step and a
// schema inference per file, each time a query reads it: minutes at
// 2,000 files, and past about 100 the optimizer's limit
// (clickHouseOptimizations).
func clickHouseFiles(cols string, files []string, levels int) string {
	var dirs []string
	byDir := map[string][]string{}
	var sel []string
	for _, f := range files {
		f = filepath.ToSlash(f)
		dir := f
		for range levels {
			dir = path.Dir(dir)
		}
		rel := f
		if dir != "." {
			rel = strings.TrimPrefix(f, strings.TrimSuffix(dir, "/")+"/")
		}
		if dir == "/" || strings.ContainsAny(f, "{},*?[]\\") || strings.Contains(rel, "..") {
			sel = append(sel, "SELECT "+cols+" FROM file("+clickHouseString(f)+", Parquet)")
			continue
		}
		if byDir[dir] == nil {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], rel)
	}
	for _, dir := range dirs {
		names := byDir[dir]
		glob := strings.TrimSuffix(dir, "/") + "/" + names[0]
		if len(names) > 1 {
			glob = strings.TrimSuffix(dir, "/") + "/{" + strings.Join(names, ",") + "}"
		}
		sel = append(sel, "SELECT "+cols+" FROM file("+clickHouseString(glob)+", Parquet)")
	}
	return strings.Join(sel, " UNION ALL ")
}

// RecordColumns are the columns of the map records that
// queries/shard/judgments.sql and history_append.sql read: on
// ClickHouse, shard_records is a table of these, read once from the
// parts.
const RecordColumns = "ord, chain_key, link_key, scope_key, nonce_key, receipt_order, claim"

// FoldColumns are the columns of the map records that
// queries/shard/fold.sql reads, as the view fold_records: read once, by
// the fold alone.
const FoldColumns = "ord, source, line, claim, base_verdict, base_reasons, fail_pre, fail_mid, fail_post, skip_pre, skip_mid, skip_post, chain_status, chain_reason, nonce_status, nonce_reason, chain_note, nonce_note, link_prev, chain_what, claim_note, unknown_format"

// clickHouseString quotes s as a ClickHouse string literal, whose
// backslash escapes.
func clickHouseString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TableViews are the statements that make, on engine, the report's
// tables (receipts, files, rejects, expected_tools, trust) over exactly
// the files of folded shards (Folds.Tables): what the report and the
// queries of queries/ read. receipts is read with its day from the
// files' day=YYYY-MM-DD directories: on DuckDB a column of the view,
// each day's files read apart; on ClickHouse by use_hive_partitioning,
// set by the session's settings the statements begin with
// (clickHouseLakeSettings, and max_query_size when a list of files
// passes it), each table read by one file() naming its files in a list
// (clickHouseFiles) under the directory that holds the folded shards.
func TableViews(engine string, tables map[string][]string) ([]string, error) {
	var out []string
	switch engine {
	case "duckdb":
		sel, err := TableSelects(tables)
		if err != nil {
			return nil, err
		}
		for _, t := range lakeTables {
			if sel[t] == "" {
				return nil, fmt.Errorf("no %s file", t)
			}
			out = append(out, "CREATE VIEW "+t+" AS "+sel[t])
		}
	case "clickhouse":
		for _, t := range lakeTables {
			files := tables[t]
			if len(files) == 0 {
				return nil, fmt.Errorf("no %s file", t)
			}
			// shard-N/TABLE/part-N.parquet, and the receipts' a
			// day=YYYY-MM-DD directory deeper.
			levels := 3
			if t == exportdir.Receipts {
				levels = 4
			}
			out = append(out, "CREATE VIEW "+t+" AS "+clickHouseFiles("*", files, levels))
		}
		out = clickHouseSession(clickHouseLakeSettings, out)
	default:
		return nil, fmt.Errorf("no engine %q (known: %s)", engine, strings.Join(Engines(), ", "))
	}
	return out, nil
}

// TableSelects are, by table, the DuckDB SELECT over exactly the files
// of folded shards (Folds.Tables): receipts with its day from each
// file's day=YYYY-MM-DD directory, not hive_partitioning, which would
// also read a key=value directory above it as a column. A run without
// receipts has no receipts file: its SELECT is "".
func TableSelects(tables map[string][]string) (map[string]string, error) {
	out := map[string]string{}
	for _, t := range lakeTables {
		files := tables[t]
		if len(files) == 0 && t == exportdir.Receipts {
			out[t] = ""
			continue
		}
		if len(files) == 0 {
			return nil, fmt.Errorf("no %s file", t)
		}
		if t != exportdir.Receipts {
			out[t] = "SELECT * FROM read_parquet(" + duckDBFiles(files) + ", hive_partitioning = false)"
			continue
		}
		var days []string
		byDay := map[string][]string{}
		for _, f := range files {
			d, ok := strings.CutPrefix(filepath.Base(filepath.Dir(f)), "day=")
			if _, err := time.Parse(time.DateOnly, d); !ok || err != nil {
				return nil, fmt.Errorf("%s: not in a day=YYYY-MM-DD directory", f)
			}
			if byDay[d] == nil {
				days = append(days, d)
			}
			byDay[d] = append(byDay[d], f)
		}
		sel := make([]string, len(days))
		for i, d := range days {
			sel[i] = "SELECT *, DATE '" + d + "' AS day FROM read_parquet(" + duckDBFiles(byDay[d]) + ", hive_partitioning = false)"
		}
		out[t] = strings.Join(sel, " UNION ALL ")
	}
	return out, nil
}

// TableList is the tables' files as TABLE<tab>PATH lines, for any other
// loader: receipts first, then expected_tools and trust.
func TableList(tables map[string][]string) []string {
	var out []string
	for _, t := range lakeTables {
		for _, f := range tables[t] {
			out = append(out, t+"\t"+f)
		}
	}
	return out
}

// foldShardRows is how many shards one INSERT of FoldShards gives.
const foldShardRows = 1000

// FoldShards are the statements that make, on engine ("duckdb" or
// "clickhouse"), the table fold_shards that queries/shard/fold.sql and
// fold_summary.sql read: one row a shard of the run, from its manifest
// (shard, records, files, files_unreadable, lines, blank, unreadable).
func (r *Run) FoldShards(engine string) []string {
	cols := "shard BIGINT, records BIGINT, files BIGINT, files_unreadable BIGINT, lines BIGINT, blank BIGINT, unreadable BIGINT"
	create := "CREATE TEMP TABLE fold_shards (" + cols + ")"
	if engine == "clickhouse" {
		create = "CREATE TABLE fold_shards (" + strings.ReplaceAll(cols, "BIGINT", "Int64") + ") ENGINE = Memory"
	}
	out := []string{create}
	var rows []string
	for i, s := range r.shards {
		m := s.m.Summary
		rows = append(rows, fmt.Sprintf("(%d, %d, %d, %d, %d, %d, %d)", s.m.Shard, m.Records, m.Files, m.FilesFailed, m.Lines, m.Blank, m.Unreadable))
		if len(rows) == foldShardRows || i == len(r.shards)-1 {
			out = append(out, "INSERT INTO fold_shards VALUES "+strings.Join(rows, ", "))
			rows = rows[:0]
		}
	}
	return out
}

// ClickHouseJudgments are the statements that make the table judgments
// (ord, kind, outcome, first_ord) of sql, queries/shard/judgments.sql,
// on ClickHouse in stages: each of its WITH names first a MergeTree
// table of its own, in the order the file defines them, then judgments
// from the final SELECT over those tables, then the stage tables
// dropped. ClickHouse runs a WITH name's query again at each use, so
// the one statement would hold every copy's hash joins, sorts and IN
// sets at once (31 joins, 12 window sorts and 15 sets), which no spill
// setting bounds; in stages, each name is computed once, the
// statements run one after another, and the stages wait on disk. The
// file is split at its WITH names: a line `name AS (` opens one, a
// line `)` or `),` closes it; comment lines are left out and each
// statement is one line. The rows are those of the file as it is.
func ClickHouseJudgments(sql string) ([]string, error) {
	var names, stmts []string
	var body, final []string
	open := ""
	for ln := range strings.SplitSeq(sql, "\n") {
		t := strings.TrimSpace(ln)
		switch {
		case strings.Contains(ln, "--") && !strings.HasPrefix(t, "--"):
			return nil, fmt.Errorf("judgments: %q: a comment after code would end the statement made one line", t)
		case final != nil:
			if t != "" && !strings.HasPrefix(t, "--") {
				final = append(final, t)
			}
		case open == "" && strings.HasSuffix(ln, " AS (") && judgmentsName(strings.TrimPrefix(strings.TrimSuffix(ln, " AS ("), "WITH ")):
			open = strings.TrimPrefix(strings.TrimSuffix(ln, " AS ("), "WITH ")
			body = nil
		case open != "" && (ln == ")" || ln == "),"):
			if len(body) == 0 {
				return nil, fmt.Errorf("judgments: %s is empty", open)
			}
			names = append(names, open)
			stmts = append(stmts, "CREATE TABLE "+open+" ENGINE = MergeTree ORDER BY tuple() AS "+strings.Join(body, " "))
			open = ""
		case open != "":
			if t != "" && !strings.HasPrefix(t, "--") {
				body = append(body, t)
			}
		case len(names) > 0 && strings.HasPrefix(ln, "SELECT "):
			final = []string{t}
		case t != "" && !strings.HasPrefix(t, "--"):
			return nil, fmt.Errorf("judgments: %q is outside the WITH names and the final SELECT", t)
		}
	}
	if open != "" || final == nil {
		return nil, fmt.Errorf("judgments: want WITH names, each opened by `name AS (` and closed by `)` on a line of its own, then the final SELECT")
	}
	stmts = append(stmts, "CREATE TABLE judgments ENGINE = MergeTree ORDER BY tuple() AS "+strings.Join(final, " "))
	for _, n := range names {
		stmts = append(stmts, "DROP TABLE "+n)
	}
	return stmts, nil
}

// judgmentsName reports whether s is a WITH name of judgments.sql:
// lowercase letters and underscores.
func judgmentsName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && c != '_' {
			return false
		}
	}
	return true
}
