package shard

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
)

// Engines are the engines Views writes statements for.
var Engines = []string{"duckdb", "clickhouse"}

// historyColumns are the columns of history_records that the judgment
// SQL reads.
const historyColumns = "ord, chain_key, link_key, scope_key, nonce_key"

// Views are the statements that make, on engine, the two tables
// queries/shard/judgments.sql reads over exactly the given parts: the
// view shard_records over the run's parts and history_records over the
// history's, or an empty table without history. No glob: a file an
// earlier attempt or another run left beside them is never read.
func Views(engine string, parts, history []string) ([]string, error) {
	switch engine {
	case "duckdb":
		return duckDBViews(parts, history), nil
	case "clickhouse":
		return clickHouseViews(parts, history), nil
	}
	return nil, fmt.Errorf("no engine %q (known: %s)", engine, strings.Join(Engines, ", "))
}

// duckDBViews: read_parquet over the list of files.
func duckDBViews(parts, history []string) []string {
	list := func(files []string) string {
		q := make([]string, len(files))
		for i, f := range files {
			q[i] = sqlString(filepath.ToSlash(f))
		}
		return "[" + strings.Join(q, ", ") + "]"
	}
	out := []string{"CREATE VIEW shard_records AS SELECT * FROM read_parquet(" + list(parts) + ")"}
	if len(history) == 0 {
		return append(out, "CREATE TEMP TABLE history_records (ord BIGINT, chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR)")
	}
	return append(out, "CREATE VIEW history_records AS SELECT "+historyColumns+" FROM read_parquet("+list(history)+")")
}

// clickHouseViews: one file() per part, joined by UNION ALL (ClickHouse's
// file() takes one path or a glob, never a list).
func clickHouseViews(parts, history []string) []string {
	union := func(cols string, files []string) string {
		sel := make([]string, len(files))
		for i, f := range files {
			sel[i] = "SELECT " + cols + " FROM file(" + clickHouseString(filepath.ToSlash(f)) + ", Parquet)"
		}
		return strings.Join(sel, " UNION ALL ")
	}
	out := []string{"CREATE VIEW shard_records AS " + union("*", parts)}
	if len(history) == 0 {
		return append(out, "CREATE TABLE history_records (ord Int64, chain_key Nullable(String), link_key Nullable(String), scope_key Nullable(String), nonce_key Nullable(String)) ENGINE = Memory")
	}
	return append(out, "CREATE VIEW history_records AS "+union(historyColumns, history))
}

// clickHouseString quotes s as a ClickHouse string literal, whose
// backslash escapes.
func clickHouseString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// TableViews are the statements that make, on engine, the report's
// tables (receipts, expected_tools, trust) over exactly the files of
// folded shards (Folds.Tables): what the finding queries of queries/
// read. receipts is read with its day from the files' day=YYYY-MM-DD
// directories: on DuckDB a column of the view, each day's files read
// apart; on ClickHouse the use_hive_partitioning setting, which the
// session must set.
func TableViews(engine string, tables map[string][]string) ([]string, error) {
	var out []string
	for _, t := range lakeTables {
		files := tables[t]
		if len(files) == 0 {
			return nil, fmt.Errorf("no %s file", t)
		}
		switch engine {
		case "duckdb":
			list := func(files []string) string {
				q := make([]string, len(files))
				for i, f := range files {
					q[i] = sqlString(filepath.ToSlash(f))
				}
				return "[" + strings.Join(q, ", ") + "]"
			}
			if t != analytics.ParquetReceipts {
				out = append(out, "CREATE VIEW "+t+" AS SELECT * FROM read_parquet("+list(files)+", hive_partitioning = false)")
				continue
			}
			// The day of each day's files, from its directory's name
			// alone: hive_partitioning would also read a key=value
			// directory above it as a column.
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
				sel[i] = "SELECT *, DATE '" + d + "' AS day FROM read_parquet(" + list(byDay[d]) + ", hive_partitioning = false)"
			}
			out = append(out, "CREATE VIEW "+t+" AS "+strings.Join(sel, " UNION ALL "))
		case "clickhouse":
			sel := make([]string, len(files))
			for i, f := range files {
				sel[i] = "SELECT * FROM file(" + clickHouseString(filepath.ToSlash(f)) + ", Parquet)"
			}
			out = append(out, "CREATE VIEW "+t+" AS "+strings.Join(sel, " UNION ALL "))
		default:
			return nil, fmt.Errorf("no engine %q (known: %s)", engine, strings.Join(Engines, ", "))
		}
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
