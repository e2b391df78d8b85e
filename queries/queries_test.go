package queries

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestFiles: every .sql file opens with a header comment naming it and
// saying what its parameter is, is one statement that binds the day once
// in the params line and ends with an ORDER BY, and keeps to portable SQL.
// (analytics.TestQueryFiles runs each in DuckDB.)
func TestFiles(t *testing.T) {
	t.Parallel()
	names, err := fs.Glob(FS(), "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("no queries: %v", err)
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".sql")
		t.Run(base, func(t *testing.T) {
			b, err := fs.ReadFile(FS(), name)
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if !strings.HasPrefix(text, "-- "+base+": ") {
				t.Errorf("does not open with the header comment %q", "-- "+base+": ")
			}
			if !strings.Contains(text, "\n-- Parameter: ") {
				t.Errorf("header does not say what its parameter is")
			}
			code := strings.TrimSpace(stripComments(text))
			if n := strings.Count(code, "?"); n != 1 {
				t.Errorf("%d ? placeholders, want exactly 1", n)
			}
			if !strings.HasPrefix(code, "WITH params AS (SELECT CAST(? AS DATE) AS day)") {
				t.Errorf("statement does not open with the params line")
			}
			checkStatement(t, code)
		})
	}
}

// TestJudgments: the judgment SQL of a sharded run keeps to the same
// portable SQL, without a parameter (internal/testkit/enginetest runs it on
// DuckDB, ClickHouse and PostgreSQL).
func TestJudgments(t *testing.T) {
	t.Parallel()
	if !strings.HasPrefix(Judgments(), "-- judgments: ") || !strings.Contains(Judgments(), "\n-- Parameter: none.") {
		t.Errorf("does not open with its header comment, saying it takes no parameter")
	}
	code := strings.TrimSpace(stripComments(Judgments()))
	if strings.Contains(code, "?") {
		t.Errorf("holds a ? placeholder")
	}
	if m := regexp.MustCompile(`(?i)\bunion\s+(\w+)`).FindAllStringSubmatch(code, -1); len(m) == 0 {
		t.Errorf("no UNION ALL")
	} else {
		for _, u := range m {
			if w := strings.ToUpper(u[1]); w != "ALL" && w != "DISTINCT" {
				t.Errorf("a bare UNION: ClickHouse refuses it; say ALL or DISTINCT")
			}
		}
	}
	checkStatement(t, code)
}

// TestFold: the fold SQL of a sharded run keeps to the same portable
// SQL, without a parameter (internal/testkit/enginetest runs it on DuckDB
// and ClickHouse).
func TestFold(t *testing.T) {
	t.Parallel()
	for name, q := range map[string]string{"fold": Fold(), "fold_summary": FoldSummary()} {
		if !strings.HasPrefix(q, "-- "+name+": ") || !strings.Contains(q, "\n-- Parameter: none.") {
			t.Errorf("%s: does not open with its header comment, saying it takes no parameter", name)
		}
		// The notes hold "; " in their strings: the statement is what
		// is outside them.
		code := stringLiteral.ReplaceAllString(strings.TrimSpace(stripComments(q)), "''")
		if strings.ContainsAny(code, ";?") {
			t.Errorf("%s: holds a ';' or a ? placeholder", name)
		}
		checkStatement(t, code)
	}
}

// stringLiteral is a SQL string in single quotes.
var stringLiteral = regexp.MustCompile(`'(?:[^']|'')*'`)

// TestHistorySuperseded: the count of history keys a run's receipt
// stands before is one portable statement with its header, like the
// judgments it reads beside.
func TestHistorySuperseded(t *testing.T) {
	t.Parallel()
	q := HistorySuperseded()
	if !strings.HasPrefix(q, "-- history_superseded: ") || !strings.Contains(q, "\n-- Parameter: none.") {
		t.Errorf("does not open with its header comment, saying it takes no parameter")
	}
	code := strings.TrimSpace(stripComments(q))
	if strings.Contains(code, "?") {
		t.Errorf("holds a ? placeholder")
	}
	checkStatement(t, code)
}

// TestHistoryRocksPut: the put into the RocksDB history is one
// ClickHouse statement with its header, writing history_rocks.
func TestHistoryRocksPut(t *testing.T) {
	t.Parallel()
	put := HistoryRocksPut()
	if !strings.HasPrefix(put, "-- history_rocks_put: ") || !strings.Contains(put, "\n-- Parameter: none.") {
		t.Errorf("does not open with its header comment, saying it takes no parameter")
	}
	code := strings.TrimSpace(stripComments(put))
	if strings.ContainsAny(code, ";?") {
		t.Errorf("holds a ';' or a ? placeholder")
	}
	if !strings.HasPrefix(code, "INSERT INTO history_rocks (key, scope, receipt_order)") {
		t.Errorf("does not insert into history_rocks (key, scope, receipt_order)")
	}
}

// checkStatement: code is one statement, ending with an ORDER BY, in
// portable SQL.
func checkStatement(t *testing.T, code string) {
	t.Helper()
	if strings.Contains(code, ";") {
		t.Errorf("holds a ';': one statement per file, without terminator")
	}
	if !regexp.MustCompile(`(?is)\border\s+by\b[^()]*$`).MatchString(code) {
		t.Errorf("does not end with an ORDER BY")
	}
	for _, re := range forbidden {
		if m := re.FindString(code); m != "" {
			t.Errorf("not portable: %q", m)
		}
	}
}

// forbidden are what portable SQL does without.
var forbidden = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\bqualify\b`),
	regexp.MustCompile(`->>?`),                         // JSON paths
	regexp.MustCompile(`(?i)\bjson\w*\s*\(`),           // json_extract and friends
	regexp.MustCompile(`::`),                           // cast shorthand
	regexp.MustCompile(`(?i)\b(exclude|replace)\s*\(`), // SELECT * EXCLUDE (...)
	regexp.MustCompile(`(?i)\b(list|string|array)_agg\b|\blist\s*\(|\bgroup_concat\b`),
	regexp.MustCompile(`(?i)\bgroup\s+by\s+all\b|\border\s+by\s+all\b`),
	regexp.MustCompile(`\$\d`), // the day is ?, not $1
	regexp.MustCompile(`"`),    // identifiers unquoted, strings in single quotes
}

// stripComments drops -- comments (the queries hold no "--" in strings).
func stripComments(s string) string {
	var b strings.Builder
	for line := range strings.SplitSeq(s, "\n") {
		if i := strings.Index(line, "--"); i >= 0 {
			line = line[:i]
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
