package queries

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"time"
)

// Findings are the detection queries a report runs, in report order. The
// other files (days, files, tool_days) answer questions around them.
func Findings() []string {
	return []string{"collisions", "drift", "replays", "failures", "rejects", "completeness", "gaps"}
}

// Query is one embedded SQL file.
type Query struct {
	Name   string // the file's base name without .sql: "collisions"
	File   string // "queries/collisions.sql"
	Text   string // the statement, header comment included
	SHA256 string // lowercase hex SHA-256 of the file's bytes
}

// All lists the embedded queries by name.
func All() []Query {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		panic(err) // an embed.FS root always reads
	}
	var out []Query
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".sql")
		if !ok || e.IsDir() {
			continue
		}
		b, err := fs.ReadFile(files, e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(b)
		out = append(out, Query{Name: name, File: path.Join("queries", e.Name()), Text: string(b), SHA256: hex.EncodeToString(sum[:])})
	}
	return out
}

// Names lists the names of the embedded queries, sorted.
func Names() []string {
	var names []string
	for _, q := range All() {
		names = append(names, q.Name)
	}
	return names
}

// Lookup returns the embedded query called name, or an error naming the
// queries there are.
func Lookup(name string) (Query, error) {
	for _, q := range All() {
		if q.Name == name {
			return q, nil
		}
	}
	return Query{}, &unknownQueryError{Name: name}
}

// unknownQueryError is a query name with no file in queries/.
type unknownQueryError struct{ Name string }

func (e *unknownQueryError) Error() string {
	return fmt.Sprintf("unknown query %q (queries: %s)", e.Name, strings.Join(Names(), ", "))
}

// ParseDay checks a YYYY-MM-DD day, the parameter every query binds, and
// returns it as a UTC midnight.
func ParseDay(s string) (time.Time, error) {
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("day %q is not YYYY-MM-DD", s)
	}
	return t, nil
}
