package analytics

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/textdiff"
	"github.com/receiptverify/verify/verify/stream"
)

// readLines splits a file into its lines (without "\n").
func readLines(t testing.TB, path string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func writeLines(t testing.TB, path string, lines [][]byte) {
	t.Helper()
	data := append(bytes.Join(lines, []byte("\n")), '\n')
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// gzipInput gzips src to dst and returns it as an input whose stored bytes
// are the compressed ones.
func gzipInput(t testing.TB, src, dst string) Input {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(dst, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return Input{
		Source: stream.Source{Name: dst, Lines: true, Open: func() (io.ReadCloser, error) {
			f, err := os.Open(dst)
			if err != nil {
				return nil, err
			}
			zr, err := gzip.NewReader(f)
			if err != nil {
				f.Close()
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{zr, f}, nil
		}},
		Stored: func() (io.ReadCloser, error) { return os.Open(dst) },
	}
}

// TestLoadTwice loads a corpus split over three files (one gzipped), then
// the same again plus a copy under another name: every table is unchanged.
func TestLoadTwice(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 11, N: 240, Rate: 0.1, Days: 3})
	dir := t.TempDir()
	lines := readLines(t, c.receipts)
	a, b, z := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")
	writeLines(t, a, lines[:100])
	writeLines(t, b, lines[100:200])
	writeLines(t, z, lines[200:])
	inputs := []Input{fileInput(a), fileInput(b), gzipInput(t, z, z+".gz")}
	db := openTestDB(t)
	ctx := context.Background()
	opts := LoadOptions{Schemas: c.schemas, TempDir: t.TempDir()}

	first, err := db.Load(ctx, c.v, inputs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range first.Files {
		if f.AlreadyLoaded || f.Err != nil || f.Accepted == 0 {
			t.Errorf("first load: %+v", f)
		}
	}
	if got := queryInt(t, db, "SELECT count(*) FROM receipts"); got != int64(len(lines)) {
		t.Fatalf("%d receipts rows, want %d", got, len(lines))
	}
	if got, want := queryInt(t, db, "SELECT count(*) FROM expected_tools"), int64(len(c.schemas.Tools())); got != want {
		t.Errorf("%d expected_tools rows, want %d", got, want)
	}
	before := dump(t, db)

	copyOfA := filepath.Join(dir, "copy-of-a.jsonl")
	writeLines(t, copyOfA, lines[:100])
	second, err := db.Load(ctx, c.v, append(inputs, fileInput(copyOfA)), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range second.Files {
		if !f.AlreadyLoaded || f.Accepted != 0 {
			t.Errorf("second load: %+v, want already loaded", f)
		}
	}
	if after := dump(t, db); after != before {
		t.Errorf("second load changed the database:\n%s", textdiff.Lines(before, after))
	}
}

// TestLoadDuplicateInOneRun gives the same bytes twice in one load: the
// second is already loaded.
func TestLoadDuplicateInOneRun(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 12, N: 30, Days: 1})
	cp := filepath.Join(t.TempDir(), "copy.jsonl")
	writeLines(t, cp, readLines(t, c.receipts))
	db := openTestDB(t)
	sum := mustLoad(t, db, c.v, nil, c.receipts, cp)
	if sum.Files[0].AlreadyLoaded || !sum.Files[1].AlreadyLoaded {
		t.Errorf("files: %+v", sum.Files)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM receipts"); got != 30 {
		t.Errorf("%d rows, want 30", got)
	}
}

// TestLoadCancelled cancels a load in the middle of a file, at three points:
// while the file is being verified (some chunks already inserted in its
// transaction), and with every row inserted just before the commit. The
// database is as it was before the file, and no spool is left behind.
func TestLoadCancelled(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 13, N: 600, Rate: 0.05, Days: 2})
	lines := readLines(t, c.receipts)
	dir := t.TempDir()
	first, second := filepath.Join(dir, "first.jsonl"), filepath.Join(dir, "second.jsonl")
	writeLines(t, first, lines[:200])
	writeLines(t, second, lines[200:])
	db := openTestDB(t)
	mustLoad(t, db, c.v, c.schemas, first)
	before := dump(t, db)

	tests := []struct {
		name string
		set  func(opts *LoadOptions, cancel func())
	}{
		{"while verifying", func(opts *LoadOptions, cancel func()) {
			opts.Progress = func(p stream.Progress) {
				if p.Pass == 2 && p.Records >= 250 {
					cancel()
				}
			}
		}},
		{"before commit", func(opts *LoadOptions, cancel func()) {
			opts.beforeCommit = func(ctx context.Context, f *FileSummary) error {
				if n := queryInTx(t, db, f); n != 0 {
					t.Errorf("before commit: %d rows of the file visible outside its transaction", n)
				}
				cancel()
				return ctx.Err()
			}
		}},
		{"hook error", func(opts *LoadOptions, cancel func()) {
			opts.beforeCommit = func(context.Context, *FileSummary) error { return errors.New("disk full") }
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			spools := t.TempDir()
			opts := LoadOptions{TempDir: spools, chunkBytes: 16 << 10}
			tt.set(&opts, cancel)
			_, err := db.Load(ctx, c.v, []Input{fileInput(second)}, opts)
			if err == nil {
				t.Fatal("Load: no error")
			}
			if tt.name != "hook error" && !errors.Is(err, context.Canceled) {
				t.Errorf("Load: %v, want context.Canceled", err)
			}
			if after := dump(t, db); after != before {
				t.Errorf("the database changed:\n%s", textdiff.Lines(before, after))
			}
			if left, _ := os.ReadDir(spools); len(left) > 0 {
				t.Errorf("%d spool files left", len(left))
			}
		})
	}
	// Nothing was held: the file loads afterwards.
	sum := mustLoad(t, db, c.v, c.schemas, second)
	if sum.Files[0].Accepted != int64(len(lines)-200) {
		t.Errorf("after the cancelled loads: %+v", sum.Files[0])
	}
}

// queryInTx counts, from another connection, the rows of f that are visible
// while f's transaction is open.
func queryInTx(t *testing.T, db *DB, f *FileSummary) int64 {
	return queryInt(t, db, "SELECT count(*) FROM receipts WHERE file_sha256 = $1", f.SHA256)
}

// TestLoadMalformed loads a file with every kind of bad line among good
// ones: each good line is a receipts row, each bad one a rejects row, with
// its line number; blank lines are counted and nothing else.
func TestLoadMalformed(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 14, N: 20, Days: 1})
	good := readLines(t, c.receipts)
	type line struct {
		text   string
		reject bool // rejects, else receipts (or blank)
		blank  bool
		noRaw  bool // rejects.raw is NULL
	}
	g := func(i int) line { return line{text: string(good[i])} }
	lines := []line{
		g(0),
		{text: "garbage", reject: true},
		g(1),
		{text: `{"truncated": "rece`, reject: true},
		{text: "", blank: true},
		g(2),
		{text: "   \t", blank: true},
		{text: "{\"a\":\"\x00\"}", reject: true, noRaw: true},
		{text: "{\"a\":\"\xff\xfe\"}", reject: true, noRaw: true},
		{text: strings.Repeat("x", 16<<20+1), reject: true, noRaw: true},
		{text: `[1,2]`}, // JSON, but no receipt: an INCOMPLETE row (unknown_format)
		{text: `["` + strings.Repeat(`\"`, 5<<20) + `"]`}, // 10 MiB, 20 MiB spooled: over DuckDB's default object size
		{text: string(good[3][:len(good[3])/2]), reject: true},
		g(4),
		{text: "\r", blank: true},
		g(5), // last, without a newline
	}
	var buf bytes.Buffer
	for i, l := range lines {
		buf.WriteString(l.text)
		if i < len(lines)-1 {
			buf.WriteByte('\n')
		}
	}
	path := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	sum := mustLoad(t, db, c.v, c.schemas, path)
	f := sum.Files[0]

	var wantAccepted, wantRejected, blank int64
	for i, l := range lines {
		n := i + 1
		switch {
		case l.blank:
			blank++
			if got := queryInt(t, db, "SELECT count(*) FROM receipts WHERE line = $1", n) + queryInt(t, db, "SELECT count(*) FROM rejects WHERE line = $1", n); got != 0 {
				t.Errorf("blank line %d: %d rows", n, got)
			}
		case l.reject:
			wantRejected++
			var raw *string
			var msg string
			if err := db.SQL().QueryRow("SELECT raw, error FROM rejects WHERE line = $1", n).Scan(&raw, &msg); err != nil {
				t.Errorf("line %d: no rejects row: %v", n, err)
				continue
			}
			if msg == "" {
				t.Errorf("line %d: empty error", n)
			}
			switch {
			case l.noRaw && raw != nil:
				t.Errorf("line %d: raw %.40q, want NULL", n, *raw)
			case !l.noRaw && (raw == nil || *raw != l.text):
				t.Errorf("line %d: raw %v, want %.40q", n, raw, l.text)
			}
		default:
			wantAccepted++
			rs, err := receiptsAt(context.Background(), db.SQL(), path, int64(n))
			if err != nil || len(rs) != 1 {
				t.Errorf("line %d: %d receipts rows: %v", n, len(rs), err)
				continue
			}
			if rs[0].Raw != nil && string(rs[0].Raw) != l.text {
				t.Errorf("line %d: raw differs from the line read", n)
			}
			if got, err := rs[0].ReadArchive(context.Background(), ""); err != nil || string(got) != l.text {
				t.Errorf("line %d: the line at its recorded place differs from the line read (%v)", n, err)
			}
		}
	}
	if f.Accepted != wantAccepted || f.Rejected != wantRejected || f.Lines != int64(len(lines)) {
		t.Errorf("summary %+v, want %d lines, %d accepted, %d rejected", f, len(lines), wantAccepted, wantRejected)
	}
	var fl, fa, fr int64
	if err := db.SQL().QueryRow("SELECT lines, accepted, rejected FROM files").Scan(&fl, &fa, &fr); err != nil {
		t.Fatal(err)
	}
	if fl != int64(len(lines)) || fa != wantAccepted || fr != wantRejected || fa+fr+blank != fl {
		t.Errorf("files row: lines %d, accepted %d, rejected %d (blank %d)", fl, fa, fr, blank)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM receipts"); got != wantAccepted {
		t.Errorf("%d receipts rows, want %d", got, wantAccepted)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM rejects"); got != wantRejected {
		t.Errorf("%d rejects rows, want %d", got, wantRejected)
	}
}

// TestLoadUnreadable: an input that cannot be read (missing, or gzip that
// is not) is reported and nothing of it recorded; the others load.
func TestLoadUnreadable(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 15, N: 20, Days: 1})
	dir := t.TempDir()
	notGzip := filepath.Join(dir, "plain.jsonl")
	writeLines(t, notGzip, readLines(t, c.receipts)[:5])
	bad := gzipInput(t, notGzip, filepath.Join(dir, "bad.jsonl.gz"))
	os.WriteFile(filepath.Join(dir, "bad.jsonl.gz"), []byte("not gzip at all\n"), 0o644)
	missing := fileInput(filepath.Join(dir, "missing.jsonl"))
	db := openTestDB(t)
	var seen []string
	sum, err := db.Load(context.Background(), c.v, []Input{missing, bad, fileInput(c.receipts)}, LoadOptions{
		TempDir: t.TempDir(),
		OnFile:  func(f FileSummary) { seen = append(seen, filepath.Base(f.Path)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unreadable() != 2 || sum.Files[0].Err == nil || sum.Files[1].Err == nil || sum.Files[2].Accepted != 20 {
		t.Errorf("summary: %+v", sum.Files)
	}
	if len(seen) != 3 {
		t.Errorf("OnFile called for %v", seen)
	}
	if got := queryInt(t, db, "SELECT count(*) FROM files"); got != 1 {
		t.Errorf("%d files rows, want 1", got)
	}
}

// TestLoadRows checks the columns of every row against the file and the
// verifier: raw is the line exactly, fields are the result's, day is the
// UTC date of issued_at, and the counts agree with the verification.
func TestLoadRows(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 16, N: 300, Rate: 0.1, Days: 4})
	lines := readLines(t, c.receipts)
	db := openTestDB(t)
	sum := mustLoad(t, db, c.v, c.schemas, c.receipts)
	vs := sum.Verify
	for verdict, want := range map[string]int64{"PASS": vs.Pass, "FAIL": vs.Fail, "INCOMPLETE": vs.Incomplete} {
		if got := queryInt(t, db, "SELECT count(*) FROM receipts WHERE verdict = $1", verdict); got != want {
			t.Errorf("%s: %d rows, want %d", verdict, got, want)
		}
	}
	for _, m := range []string{toolMatch, toolDrift} {
		if queryInt(t, db, "SELECT count(*) FROM receipts WHERE tool_match = $1", m) == 0 {
			t.Errorf("no row with tool_match %s", m)
		}
	}
	rows, err := db.SQL().Query(`SELECT line, format, action_id, agent_id, session_id, step, tool_name,
		tool_fingerprint, nonce, signature_sha256, previous_hash, chain_hash, decision,
		strftime(issued_at, '%Y-%m-%dT%H:%M:%S.%fZ'), CAST(day AS VARCHAR), raw, verdict FROM receipts ORDER BY line`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var line int
		var format, verdict string
		var actionID, agentID, sessionID, toolName, toolFP, nonce, sig, prev, chain, decision, issued, day, raw *string
		var step *int64
		if err := rows.Scan(&line, &format, &actionID, &agentID, &sessionID, &step, &toolName, &toolFP, &nonce, &sig, &prev, &chain, &decision, &issued, &day, &raw, &verdict); err != nil {
			t.Fatal(err)
		}
		n++
		if raw != nil && *raw != string(lines[line-1]) {
			t.Errorf("line %d: raw is not the line", line)
		}
		if raw == nil && verdict != "PASS" {
			t.Errorf("line %d: %s, stored without its line", line, verdict)
		}
		res, _ := c.v.Verify(lines[line-1])
		f := res.Fields
		got := []any{format, deref(actionID), deref(agentID), deref(sessionID), derefInt(step), deref(toolName), deref(toolFP), deref(nonce), deref(sig), deref(prev), deref(chain), deref(decision)}
		want := []any{res.Format, f.ActionID, f.AgentID, f.SessionID, derefInt(f.Step), f.ToolName, f.ToolFingerprint, f.Nonce, f.SignatureSHA256, f.PreviousHash, res.Fingerprints.ChainHash, f.Decision}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("line %d:\n got %v\nwant %v", line, got, want)
		}
		it, err := time.Parse(time.RFC3339Nano, f.IssuedAt)
		if err != nil {
			t.Fatalf("line %d: issued_at %q: %v", line, f.IssuedAt, err)
		}
		it = it.UTC()
		if deref(issued) != it.Format("2006-01-02T15:04:05.000000Z") || deref(day) != it.Format(time.DateOnly) {
			t.Errorf("line %d: issued_at %v day %v, want %s", line, deref(issued), deref(day), it.Format(time.RFC3339Nano))
		}
	}
	if n != len(lines) {
		t.Errorf("%d rows, want %d", n, len(lines))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	if *s == "" {
		return "<empty>"
	}
	return *s
}

func derefInt(p *int64) string {
	if p == nil {
		return "<nil>"
	}
	return fmt.Sprint(*p)
}

// dayCases are receipts issued near midnight UTC, in every way issued_at is
// written, with the UTC day each belongs to.
var dayCases = []struct{ issued, day string }{
	{"2026-11-02T00:30:00Z", "2026-11-02"},
	{"2026-11-01T23:59:59.999999Z", "2026-11-01"},
	{"2026-11-02T00:00:00.000001", "2026-11-02"}, // Python isoformat, no offset: UTC
	{"2026-11-01T20:30:00-05:00", "2026-11-02"},  // 01:30 UTC
	{"2026-11-02T03:00:00+05:00", "2026-11-01"},  // 22:00 UTC
	{"2026-11-02T04:59:59+00:00", "2026-11-02"},  // 23:59:59 the day before in New York
	{"not a time", "LOAD"},                       // no readable issued_at: the UTC day of the load
}

// TestLoadTimeZone loads receipts issued near midnight UTC in processes
// whose local time zone is UTC and America/New_York: the days are the UTC
// ones in both, as DuckDB reports them and as the driver scans them.
func TestLoadTimeZone(t *testing.T) {
	t.Parallel()
	if _, err := time.LoadLocation("America/New_York"); err != nil {
		t.Skip("no tz database:", err)
	}
	c := genCorpus(t, "", receiptgen.Config{Seed: 17, N: 5, Days: 1})
	good := readLines(t, c.receipts)
	var lines [][]byte
	for _, dc := range dayCases {
		res, _ := c.v.Verify(good[0])
		lines = append(lines, bytes.Replace(good[0], []byte(`"`+res.Fields.IssuedAt+`"`), []byte(`"`+dc.issued+`"`), 1))
	}
	input := filepath.Join(c.dir, "midnight.jsonl")
	writeLines(t, input, lines)
	for _, tz := range []string{"UTC", "America/New_York"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLoadTimeZoneChild$", "-test.v")
		cmd.Env = append(os.Environ(), "TZ="+tz, "VERIFY_TZ_CHILD="+c.dir)
		before := time.Now().UTC().Format(time.DateOnly)
		out, err := cmd.CombinedOutput()
		after := time.Now().UTC().Format(time.DateOnly)
		if err != nil {
			t.Fatalf("TZ=%s: %v\n%s", tz, err, out)
		}
		_, got, ok := strings.Cut(string(out), "LOADED ")
		loaded, got, _ := strings.Cut(got, "\n")
		if !ok || (loaded != before && loaded != after) {
			t.Fatalf("TZ=%s: loaded_at is on %q, want the UTC day %s\n%s", tz, loaded, after, out)
		}
		_, got, ok = strings.Cut(got, "DAYS\n")
		got, _, _ = strings.Cut(got, "END\n")
		var want strings.Builder
		for i, dc := range dayCases {
			day := strings.Replace(dc.day, "LOAD", loaded, 1)
			fmt.Fprintf(&want, "%d %s %s\n", i+1, day, day)
		}
		if !ok || got != want.String() {
			t.Errorf("TZ=%s: line, day (DuckDB), day (driver):\n%s\nwant:\n%s", tz, got, want.String())
		}
	}
}

// TestLoadTimeZoneChild is TestLoadTimeZone's child process.
func TestLoadTimeZoneChild(t *testing.T) {
	dir := os.Getenv("VERIFY_TZ_CHILD")
	if dir == "" {
		t.Skip("run by TestLoadTimeZone")
	}
	v, _ := verifierFor(t, dir, testStart.AddDate(0, 1, 0))
	db := openTestDB(t)
	mustLoad(t, db, v, nil, filepath.Join(dir, "midnight.jsonl"))
	var loaded time.Time
	if err := db.SQL().QueryRow("SELECT loaded_at FROM files").Scan(&loaded); err != nil {
		t.Fatal(err)
	}
	fmt.Printf("LOADED %s\n", loaded.UTC().Format(time.DateOnly))
	rows, err := db.SQL().Query("SELECT line, CAST(day AS VARCHAR), day FROM receipts ORDER BY line")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line int
		var s *string
		var d *time.Time
		if err := rows.Scan(&line, &s, &d); err != nil {
			t.Fatal(err)
		}
		ds := "NULL"
		if d != nil {
			ds = d.Format(time.DateOnly)
		}
		fmt.Fprintf(&b, "%d %s %s\n", line, strings.Replace(deref(s), "<nil>", "NULL", 1), ds)
	}
	fmt.Printf("DAYS\n%sEND\n", b.String())
}
