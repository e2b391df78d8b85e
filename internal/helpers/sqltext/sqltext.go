// Package sqltext writes values into the text of SQL statements, for the
// places a statement cannot take them as parameters: the files a table
// function reads, the lists of IN and VALUES, a view's definition.
package sqltext

import "strings"

// String is s as a SQL string literal, single-quoted with each quote
// doubled, as DuckDB and PostgreSQL read it. (ClickHouse also reads
// backslash escapes in one: see internal/shard's clickHouseString.)
func String(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Strings is ss as string literals separated by commas, for IN (...).
func Strings(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = String(s)
	}
	return strings.Join(q, ", ")
}

// List is ss as a DuckDB list of string literals: ['a', 'b'].
func List(ss []string) string { return "[" + Strings(ss) + "]" }
