package analytics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// TestOpenSettings checks the per-connection settings on the first
// connection and on a second one the pool opens while the first is busy.
func TestOpenSettings(t *testing.T) {
	t.Parallel()
	db, err := Open(filepath.Join(t.TempDir(), "a.duckdb"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	c1, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := db.SQL().Conn(ctx) // c1 is held, so this is a new connection
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	want := map[string]string{
		"TimeZone":                     "UTC",
		"access_mode":                  "automatic",
		"autoinstall_known_extensions": "false",
		"autoload_known_extensions":    "false",
		"allocator_flush_threshold":    "15.2 MiB",
		"allocator_background_threads": "true",
	}
	for n, c := range map[string]*sql.Conn{"first": c1, "second": c2} {
		for name, w := range want {
			var got string
			if err := c.QueryRowContext(ctx, "SELECT current_setting('"+name+"')::VARCHAR").Scan(&got); err != nil {
				t.Fatalf("%s connection: %s: %v", n, name, err)
			}
			if got != w {
				t.Errorf("%s connection: %s = %q, want %q", n, name, got, w)
			}
		}
	}
	// The tables exist.
	for _, table := range []string{"files", "receipts", "rejects", "expected_tools"} {
		var n int
		if err := c2.QueryRowContext(ctx, "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Errorf("%s: %v", table, err)
		}
	}
}

// foreignFiles writes a SQLite file, a Parquet file and another tool's
// DuckDB database into dir and returns their paths by kind.
func foreignFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{
		"sqlite":  filepath.Join(dir, "app.sqlite"),
		"parquet": filepath.Join(dir, "data.parquet"),
		"duckdb":  filepath.Join(dir, "other.duckdb"),
	}
	// The 100-byte SQLite header is what DuckDB looks at to pick its
	// sqlite extension.
	hdr := append([]byte("SQLite format 3\x00"), make([]byte, 4096-16)...)
	hdr[16], hdr[17] = 0x10, 0x00 // page size 4096
	if err := os.WriteFile(files["sqlite"], hdr, 0o644); err != nil {
		t.Fatal(err)
	}
	mem, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer mem.Close()
	if _, err := mem.SQL().Exec("COPY (SELECT 1 AS a) TO " + sqltext.String(files["parquet"]) + " (FORMAT parquet)"); err != nil {
		t.Fatal(err)
	}
	c, err := duckdb.NewConnector(files["duckdb"], nil)
	if err != nil {
		t.Fatal(err)
	}
	other := sql.OpenDB(c)
	_, err = other.Exec("CREATE TABLE inventory (item VARCHAR, n INTEGER); INSERT INTO inventory VALUES ('x', 1)")
	other.Close()
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// TestOpenForeignOffline: opening a SQLite file, a Parquet file or another
// tool's DuckDB database, for loading or for reading, is refused with an
// error, makes no network call, creates nothing under $HOME and leaves the
// file as it was. The opening runs in a child process traced with strace
// (in a network namespace of its own where unshare allows, so that even a
// failure reaches nothing). Skipped without a working strace, unless
// VERIFY_STRACE=required (as in CI).
func TestOpenForeignOffline(t *testing.T) {
	if os.Getenv("VERIFY_TEST_OPEN_CHILD") != "" {
		t.Skip("child")
	}
	skip := t.Skipf
	if os.Getenv("VERIFY_STRACE") == "required" {
		skip = t.Fatalf
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		skip("strace not installed (.ci/setup installs it; VERIFY_STRACE=required makes this a failure)")
	}
	if err := exec.Command(strace, "-f", "-qq", "-o", os.DevNull, "true").Run(); err != nil {
		skip("strace cannot trace here: %v", err)
	}
	dir := t.TempDir()
	files := foreignFiles(t, dir)
	sums := map[string][32]byte{}
	for k, p := range files {
		sums[k] = fileSum(t, p)
	}
	home := t.TempDir()
	trace := filepath.Join(t.TempDir(), "trace")
	args := []string{"-f", "-qq", "-e", "trace=socket,connect", "-o", trace, os.Args[0], "-test.run=^TestOpenForeignChild$", "-test.v"}
	cmd := exec.Command(strace, args...)
	if exec.Command("unshare", "-rn", "true").Run() == nil {
		cmd = exec.Command("unshare", append([]string{"-rn", strace}, args...)...)
	}
	cmd.Env = append(os.Environ(), "HOME="+home, "VERIFY_TEST_OPEN_CHILD="+dir, "XDG_CONFIG_HOME=", "XDG_CACHE_HOME=")
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Contains(out, []byte("--- PASS: TestOpenForeignChild")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	tr, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(?m)^.*(socket\(AF_INET6?|connect\(\d+, \{sa_family=AF_INET).*$`).Find(tr); m != nil {
		t.Errorf("network call while opening foreign files: %s", m)
	}
	if left, _ := os.ReadDir(home); len(left) > 0 {
		t.Errorf("%s created under $HOME", left[0].Name())
	}
	for k, p := range files {
		if fileSum(t, p) != sums[k] {
			t.Errorf("%s: the file changed", k)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != len(files) {
		t.Errorf("files appeared beside the foreign files: %v", ents)
	}
}

// TestOpenForeignChild is TestOpenForeignOffline's traced child.
func TestOpenForeignChild(t *testing.T) {
	dir := os.Getenv("VERIFY_TEST_OPEN_CHILD")
	if dir == "" {
		t.Skip("run by TestOpenForeignOffline")
	}
	for _, name := range []string{"app.sqlite", "data.parquet", "other.duckdb"} {
		p := filepath.Join(dir, name)
		for mode, open := range map[string]func(string) (*DB, error){"load": Open, "read": OpenReadOnly} {
			db, err := open(p)
			if err == nil {
				db.Close()
				t.Errorf("%s opened for %s", name, mode)
				continue
			}
			var ioe *dberr.IOError
			if !errors.As(err, &ioe) || !strings.Contains(err.Error(), "not a") {
				t.Errorf("%s for %s: %v", name, mode, err)
			}
			t.Logf("%s for %s: %v", name, mode, err)
		}
	}
}

// TestOpenReadOnly: a database opened read-only is not changed by opening,
// querying or a failing query; a second reader opens beside the first; a
// write is refused.
func TestOpenReadOnly(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "audit.duckdb")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := fileSum(t, path)
	ro, err := OpenReadOnly(path)
	if err != nil {
		t.Fatal(err)
	}
	ro2, err := OpenReadOnly(path)
	if err != nil {
		t.Fatalf("second reader: %v", err)
	}
	if _, err := runQuery(context.Background(), ro.SQL(), "failures", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := ro2.SQL().Exec("SELECT * FROM no_such_table"); err == nil {
		t.Fatal("a failing query did not fail")
	}
	if _, err := ro.SQL().Exec("CREATE TABLE x (a INTEGER)"); err == nil {
		t.Fatal("a read-only database took a write")
	}
	if !ro.ReadOnly() {
		t.Error("ReadOnly() is false")
	}
	ro.Close()
	ro2.Close()
	if fileSum(t, path) != before {
		t.Error("reading changed the database file")
	}
	if _, err := OpenReadOnly(filepath.Join(t.TempDir(), "missing.duckdb")); err == nil {
		t.Error("a missing database opened read-only")
	}
}

// TestOpenRefusesPathsTheDriverRewrites: the driver parses the name as a
// URL, so a name with '#' would open the file without the configuration.
func TestOpenRefusesPathsTheDriverRewrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"a?b.duckdb", "a#b.duckdb", "a%zz.duckdb"} {
		if db, err := Open(filepath.Join(dir, name)); err == nil {
			db.Close()
			t.Errorf("%s: opened", name)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) > 0 {
		t.Errorf("created %s", ents[0].Name())
	}
}

// TestLockedError: DuckDB's lock conflict names its holder in plain words.
func TestLockedError(t *testing.T) {
	t.Parallel()
	err := asLockedError("a.duckdb", errors.New(`IO Error: Could not set lock on file "/x/a.duckdb": Conflicting lock is held in /usr/bin/duckdb (PID 4242) by user ann. See also https://duckdb.org/docs/stable/connect/concurrency`))
	var le *lockedError
	if !errors.As(err, &le) || le.PID != 4242 || le.Program != "/usr/bin/duckdb" || !strings.Contains(err.Error(), "process 4242 (/usr/bin/duckdb) has it open") {
		t.Fatalf("%v", err)
	}
}
