package enginetest

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
)

// pgBin is the directory holding initdb and postgres: on PATH, or
// Debian's /usr/lib/postgresql/N/bin (the newest N), which is not on PATH.
func pgBin() string {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p)
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool {
		vi, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[i])))
		vj, _ := strconv.Atoi(filepath.Base(filepath.Dir(dirs[j])))
		return vi < vj
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i]
		}
	}
	return ""
}

// startPostgres runs initdb into a temporary directory and starts a
// server on a unix socket there (no TCP), stopped when t ends. The
// cluster's locale is C, so text sorts by code point as in DuckDB and
// ClickHouse. PostgreSQL refuses to run as root: as root, the server runs
// as the user nobody.
func startPostgres(t *testing.T) *pgx.ConnConfig {
	t.Helper()
	bin := pgBin()
	if bin == "" {
		absent(t, "PostgreSQL: initdb and postgres are not installed")
	}
	base, err := os.MkdirTemp("", "verify-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("nobody")
		if err != nil {
			t.Fatalf("PostgreSQL as root needs the user nobody: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, name), args...)
		cmd.Dir = base
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "LC_ALL=C", "TZ=UTC"}
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return cmd
	}
	data := filepath.Join(base, "data")
	if out, err := command("initdb", "-D", data, "-U", "verify", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	srv := command("postgres", "-D", data, "-k", base, "-c", "listen_addresses=", "-c", "fsync=off",
		"-c", "TimeZone=UTC", "-c", "max_connections=10", "-c", "shared_buffers=32MB")
	var logs bytes.Buffer
	srv.Stdout, srv.Stderr = &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatalf("postgres: %v", err)
	}
	t.Cleanup(func() {
		srv.Process.Signal(syscall.SIGINT) // fast shutdown
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			srv.Process.Kill()
			<-done
		}
	})
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=5432 user=verify dbname=postgres", base))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		conn, err := pgx.ConnectConfig(ctx, cfg)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return cfg
		}
		if time.Now().After(deadline) {
			t.Fatalf("postgres did not accept connections: %v\n%s", err, logs.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// pgType is the PostgreSQL type for a column DuckDB reads from the
// export as duck.
func pgType(t *testing.T, duck string) string {
	switch duck {
	case "VARCHAR":
		return "text"
	case "VARCHAR[]":
		return "text[]"
	case "BIGINT":
		return "bigint"
	case "INTEGER":
		return "integer"
	case "BOOLEAN":
		return "boolean"
	case "DATE":
		return "date"
	case "TIMESTAMP":
		return "timestamp"
	case "TIMESTAMP WITH TIME ZONE":
		return "timestamptz"
	case "DOUBLE":
		return "double precision"
	}
	t.Fatalf("no PostgreSQL type for the export's %s", duck)
	return ""
}

// loadPostgres creates the tables in PostgreSQL with the columns of
// the Parquet export and copies the export's rows in, reading the
// Parquet files with DuckDB.
func loadPostgres(t *testing.T, cfg *pgx.ConnConfig, dir string) {
	t.Helper()
	loadPostgresViews(t, cfg, exportdir.Views(dir), []string{"receipts", "files", "rejects", "expected_tools", "trust"})
}

// loadPostgresViews creates tables in PostgreSQL with the columns of
// the views DuckDB makes with the statements views, and copies their
// rows in.
func loadPostgresViews(t *testing.T, cfg *pgx.ConnConfig, views, tables []string) {
	t.Helper()
	ctx := context.Background()
	duck, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer duck.Close()
	duck.SetMaxOpenConns(1)
	for _, s := range views {
		if _, err := duck.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	pg, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(ctx)
	for _, table := range tables {
		rows, err := duck.Query("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM " + table + ")")
		if err != nil {
			t.Fatal(err)
		}
		var cols, defs []string
		for rows.Next() {
			var name, typ string
			if err := rows.Scan(&name, &typ); err != nil {
				t.Fatal(err)
			}
			cols = append(cols, name)
			defs = append(defs, name+" "+pgType(t, typ))
		}
		rows.Close()
		if _, err := pg.Exec(ctx, "CREATE TABLE "+table+" ("+strings.Join(defs, ", ")+")"); err != nil {
			t.Fatal(err)
		}
		rows, err = duck.Query("SELECT " + strings.Join(cols, ", ") + " FROM " + table)
		if err != nil {
			t.Fatal(err)
		}
		var data [][]any
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for i, v := range vals {
				if list, ok := v.([]any); ok {
					s := make([]string, len(list))
					for j, e := range list {
						s[j] = fmt.Sprint(e)
					}
					vals[i] = s
				}
			}
			data = append(data, vals)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		n, err := pg.CopyFrom(ctx, pgx.Identifier{table}, cols, pgx.CopyFromRows(data))
		if err != nil || n != int64(len(data)) {
			t.Fatalf("copy %s: %d of %d rows: %v", table, n, len(data), err)
		}
	}
	if _, err := pg.Exec(ctx, "ANALYZE"); err != nil {
		t.Fatal(err)
	}
}

// runPostgres runs every run on a PostgreSQL server loaded from the
// export, the day bound as $1 or written as a literal.
func runPostgres(t *testing.T, dir string, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	cfg := startPostgres(t)
	loadPostgres(t, cfg, dir)
	return runPostgresLoaded(t, cfg, runs)
}

// runPostgresLoaded runs every run on the PostgreSQL server of cfg,
// whose tables are loaded.
func runPostgresLoaded(t *testing.T, cfg *pgx.ConnConfig, runs []run) (map[string]result, map[string]string) {
	t.Helper()
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	got, errs := map[string]result{}, map[string]string{}
	for _, r := range runs {
		var args []any
		if !r.literal {
			var day any // nil: NULL
			if r.day != "" {
				day = r.day
			}
			args = []any{day}
		}
		res, err := queryRows(db, r.text(t, "CAST($1 AS DATE)"), args...)
		if err != nil {
			errs[r.String()] = "PostgreSQL: " + err.Error()
			continue
		}
		got[r.String()] = res
	}
	return got, errs
}

// queryRows runs text and returns its rows in canonical form.
func queryRows(db *sql.DB, text string, args ...any) (result, error) {
	rows, err := db.Query(text, args...)
	if err != nil {
		return result{}, err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return result{}, err
	}
	var res result
	for _, c := range types {
		res.columns = append(res.columns, c.Name())
	}
	for rows.Next() {
		vals := make([]any, len(types))
		ptrs := make([]any, len(types))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return result{}, err
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = canonGo(v, types[i].DatabaseTypeName())
		}
		res.rows = append(res.rows, out)
	}
	return res, rows.Err()
}
