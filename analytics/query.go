package analytics

import (
	"context"
	"database/sql"
	"fmt"
	"math/big"
	"strconv"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// querier runs SQL: a *sql.DB, *sql.Conn or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// RunQuery runs the embedded query name for day (YYYY-MM-DD, or "" for
// the NULL day, which most queries read as "every day"). The day is bound
// as the file's single ? parameter (see package queries). A finding
// query's finding_key column comes back as finding_id (FindingID). A
// database that cannot be read is an *dberr.IOError.
func (db *DB) RunQuery(ctx context.Context, name, day string) (*table.Table, error) {
	return runQuery(ctx, db.sql, name, day)
}

// RunQueryWith is RunQuery with gaps.sql's thresholds set to gaps.
func (db *DB) RunQueryWith(ctx context.Context, name, day string, gaps queries.GapSettings) (*table.Table, error) {
	query, err := queries.Lookup(name)
	if err != nil {
		return nil, err
	}
	return runText(ctx, db.sql, name, gaps.Apply(name, query.Text), day)
}

// runQuery is DB.RunQuery on any querier.
func runQuery(ctx context.Context, q querier, name, day string) (*table.Table, error) {
	query, err := queries.Lookup(name)
	if err != nil {
		return nil, err
	}
	return runText(ctx, q, name, query.Text, day)
}

// runText runs a statement with one day parameter.
func runText(ctx context.Context, q querier, name, text, day string) (*table.Table, error) {
	var arg any // nil: NULL
	if day != "" {
		if _, err := queries.ParseDay(day); err != nil {
			return nil, err
		}
		arg = day
	}
	rows, err := q.QueryContext(ctx, text, arg)
	if err != nil {
		return nil, &dberr.IOError{Op: "query " + name, Err: err}
	}
	defer rows.Close()
	t, err := scanTable(name, rows)
	if err != nil {
		return nil, &dberr.IOError{Op: "query " + name, Err: err}
	}
	withFindingIDs(t)
	return t, nil
}

func scanTable(name string, rows *sql.Rows) (*table.Table, error) {
	sc, err := newRowScanner(name, rows)
	if err != nil {
		return nil, err
	}
	t := &table.Table{Name: name, Columns: sc.columns}
	for {
		r, err := sc.next()
		if r == nil {
			return t, err
		}
		t.Rows = append(t.Rows, r)
	}
}

// rowScanner reads a query's rows one at a time as a Table holds them.
type rowScanner struct {
	rows    *sql.Rows
	types   []string
	columns []string
}

func newRowScanner(name string, rows *sql.Rows) (*rowScanner, error) {
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	sc := &rowScanner{rows: rows}
	for _, c := range cols {
		sc.columns = append(sc.columns, c.Name())
		sc.types = append(sc.types, c.DatabaseTypeName())
	}
	return sc, nil
}

// next is the next row, or nil at the end or on an error.
func (sc *rowScanner) next() ([]any, error) {
	if !sc.rows.Next() {
		return nil, sc.rows.Err()
	}
	vals := make([]any, len(sc.types))
	ptrs := make([]any, len(sc.types))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := sc.rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	for i, v := range vals {
		vals[i] = normalize(v, sc.types[i])
	}
	return vals, nil
}

// normalize maps driver values onto the few types Table documents.
func normalize(v any, dbType string) any {
	switch x := v.(type) {
	case nil, string, int64, float64, bool:
		return v
	case []byte:
		return string(x)
	case int8:
		return int64(x)
	case int16:
		return int64(x)
	case int32:
		return int64(x)
	case int:
		return int64(x)
	case uint8:
		return int64(x)
	case uint16:
		return int64(x)
	case uint32:
		return int64(x)
	case uint64:
		if x <= 1<<63-1 {
			return int64(x)
		}
		return strconv.FormatUint(x, 10)
	case *big.Int:
		if x.IsInt64() {
			return x.Int64()
		}
		return x.String()
	case float32:
		return float64(x)
	case time.Time:
		if dbType == "DATE" {
			return table.Date(x.UTC().Format(time.DateOnly))
		}
		return x.UTC()
	case []any:
		list := make([]string, len(x))
		for i, e := range x {
			list[i] = table.Text(normalize(e, ""))
		}
		return list
	}
	return fmt.Sprint(v)
}
