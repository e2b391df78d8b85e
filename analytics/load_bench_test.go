package analytics

// Benchmarks of the load path. They do not run in `go test ./...`.
//
// The ingestion comparison (which path to keep), on 200,000 receipts
// verified once before timing:
//
//	go test -run=^$ -bench=Ingest -benchtime=3x ./analytics/
//
// The load of 1,000,000 receipts against DuckDB's own read_ndjson of the
// same file, and against DuckDB's INSERT of the load's rows alone, in the
// same run:
//
//	go test -run=^$ -bench=Load1M -benchtime=3x -timeout=60m ./analytics/
//
// -benchn sets the receipt count of both (0: their defaults). Corpora are
// generated once (Ed25519 only, seed 1) into os.TempDir()/verify-analytics-bench/.

import (
	"bytes"
	"context"
	"database/sql/driver"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
)

var chunkMB = flag.Int64("benchchunk", 0, "spool chunk size in MiB for BenchmarkIngest (0: Load's)")

var benchN = flag.Int("benchn", 0, "receipts in the load benchmarks (0: 200,000 for Ingest, 1,000,000 for Load1M)")

// benchCorpus generates (once) and returns a cached corpus of n receipts.
func benchCorpus(b *testing.B, n int) *corpus {
	b.Helper()
	dir := filepath.Join(os.TempDir(), "verify-analytics-bench", fmt.Sprintf("ed25519-n%d-seed1", n))
	cfg := receiptgen.Config{Seed: 1, N: n, Rate: 0.02, Days: 28, Algs: receiptgen.Ed25519Only()}
	if _, err := os.Stat(filepath.Join(dir, "truth.jsonl")); err != nil {
		os.RemoveAll(dir)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := receiptgen.Generate(receiptgen.Config{Seed: cfg.Seed, N: n, Rate: cfg.Rate, Days: cfg.Days, Algs: cfg.Algs, Start: testStart}, receiptgen.DirSink(dir)); err != nil {
			b.Fatal(err)
		}
		b.Logf("generated %d receipts in %s: %s", n, time.Since(start).Round(time.Millisecond), dir)
	}
	return genCorpus(b, dir, receiptgen.Config{Days: cfg.Days, Start: testStart})
}

// verified verifies the corpus once (signatures checked) and keeps the
// results, trimmed to what a row needs, so the timed part is ingestion
// alone.
func verified(b *testing.B, c *corpus) ([]*streamrun.Record, time.Duration) {
	b.Helper()
	in := fileInput(c.receipts)
	var out []*streamrun.Record
	start := time.Now()
	_, err := streamrun.Run(context.Background(), c.v, []streamrun.Source{streamrun.Source(in.Source)}, streamrun.Options{KeepRaw: true}, func(r *streamrun.Record) error {
		tool, ok := r.Axes.Get(verify.AxisToolFingerprint)
		r.Axes = verify.Axes{}
		if ok {
			r.Axes.Set(verify.AxisToolFingerprint, tool)
		}
		out = append(out, &streamrun.Record{Result: r.Result, Raw: bytes.Clone(r.Raw)})
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return out, time.Since(start)
}

// ingestNDJSON is the kept path: Load's own loader, fed the results.
func ingestNDJSON(b *testing.B, db *DB, results []*streamrun.Record, name string) {
	ingestNDJSONChunks(b, db, results, name, 0)
}

func ingestNDJSONChunks(b *testing.B, db *DB, results []*streamrun.Record, name string, chunk int64) {
	b.Helper()
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	sum := LoadSummary{Files: []FileSummary{{Path: name, SHA256: "bench-" + name}}}
	l := &loader{ctx: ctx, db: db, conn: conn, sum: &sum, opts: LoadOptions{chunkBytes: chunk}}
	s := l.newSink([]*fileLoad{l.newFile(0, fileInput(name), plan{firstLine: 1})})
	for _, r := range results {
		r.Source = "0"
		if err := s.Emit(r); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.finish(); err != nil {
		b.Fatal(err)
	}
}

// ingestAppender is the alternative: the Go Appender, one transaction.
func ingestAppender(b *testing.B, db *DB, results []*streamrun.Record, name string) {
	b.Helper()
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	sha := "bench-" + name
	err = conn.Raw(func(dc any) error {
		ex := dc.(driver.ExecerContext)
		if _, err := ex.ExecContext(ctx, "BEGIN TRANSACTION", nil); err != nil {
			return err
		}
		app, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "receipts")
		if err != nil {
			return err
		}
		rej, err := duckdb.NewAppenderFromConn(dc.(driver.Conn), "", "rejects")
		if err != nil {
			return err
		}
		var accepted, rejected int64
		vals := make([]driver.Value, 26)
		for _, r := range results {
			if r.Verdict == verify.Unreadable {
				rejected++
				if err := rej.AppendRow(sha, name, int64(r.Line), r.Error, nilIfEmpty(string(r.Raw))); err != nil {
					return err
				}
				continue
			}
			accepted++
			appenderRow(vals, sha, name, r)
			if err := app.AppendRow(vals...); err != nil {
				return err
			}
		}
		if err := app.Close(); err != nil {
			return err
		}
		if err := rej.Close(); err != nil {
			return err
		}
		if _, err := ex.ExecContext(ctx, "INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) VALUES ('"+sha+"', '"+name+"', 0, "+
			strconv.Itoa(len(results))+", "+strconv.FormatInt(accepted, 10)+", "+strconv.FormatInt(rejected, 10)+", now()::TIMESTAMP)", nil); err != nil {
			return err
		}
		_, err = ex.ExecContext(ctx, "COMMIT", nil)
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}

func nilIfEmpty(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// appenderRow fills vals with one receipts row in table column order.
func appenderRow(vals []driver.Value, sha, source string, r *streamrun.Record) {
	f := &r.Fields
	var step, issued, day, servers driver.Value
	if len(f.ToolServers) > 0 {
		servers = f.ToolServers
	}
	if f.Step != nil {
		step = *f.Step
	}
	t := time.Now().UTC() // an undated receipt's day is the day of its load
	if it, ok := r.IssuedTime(); ok {
		t = it.UTC()
		issued = t
	}
	day = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	copy(vals, []driver.Value{
		sha, source, int64(r.Line), r.Format, string(r.Verdict), reasonStrings(r.Reasons),
		nilIfEmpty(f.ActionID), nilIfEmpty(f.AgentID), nilIfEmpty(f.IssuerID), nilIfEmpty(f.OrgID),
		nilIfEmpty(f.SessionID), step, nilIfEmpty(f.ActionType), nilIfEmpty(f.ToolName),
		nilIfEmpty(f.ToolFingerprint), toolMatchOf(r.Result), servers,
		nilIfEmpty(f.Nonce), nilIfEmpty(r.Fingerprints.CallSignature), nilIfEmpty(f.Signature),
		nilIfEmpty(f.PreviousHash), nilIfEmpty(r.Fingerprints.ChainHash), nilIfEmpty(f.Decision),
		issued, day, string(r.Raw), nilIfEmpty(streamrun.NonceDigest(r.NonceKey())), nil,
	})
}

// insertSpooled is DuckDB's part of the kept path alone: the INSERT of a
// receipts spool written before the round (BenchmarkLoad1M writes it into
// os.TempDir() once), in one transaction. Its time is what the load costs
// the engine for this table, whatever the Go side does.
func insertSpooled(path string) func(*testing.B, *DB, []*streamrun.Record, string) {
	sp := &spool{path: path}
	return inOneTransaction(
		stmt{receiptInsert + sp.read(receiptColumns), []any{"bench", "bench", "2026-12-01", "bench"}})
}

// insertRawOnly is DuckDB's cost for the raw column alone: the INSERT of
// nothing but the raw receipt text from the same spool into a table of one
// column, in one transaction. The load must store that text for every
// receipt, so no way of loading these rows into DuckDB costs less.
func insertRawOnly(path string) func(*testing.B, *DB, []*streamrun.Record, string) {
	sp := &spool{path: path}
	return inOneTransaction(
		stmt{"CREATE TABLE raw_only (raw VARCHAR NOT NULL)", nil},
		stmt{"INSERT INTO raw_only SELECT raw FROM " + sp.read(receiptColumns), nil})
}

// stmt is one SQL statement with its arguments.
type stmt struct {
	sql  string
	args []any
}

// inOneTransaction is an ingestion path that runs stmts in one transaction.
func inOneTransaction(stmts ...stmt) func(*testing.B, *DB, []*streamrun.Record, string) {
	return func(b *testing.B, db *DB, _ []*streamrun.Record, _ string) {
		b.Helper()
		tx, err := db.SQL().Begin()
		if err != nil {
			b.Fatal(err)
		}
		for _, st := range stmts {
			if _, err := tx.Exec(st.sql, st.args...); err != nil {
				b.Fatal(err)
			}
		}
		if err := tx.Commit(); err != nil {
			b.Fatal(err)
		}
	}
}

// writeSpool writes the receipts spool of results to a temporary file.
func writeSpool(b *testing.B, results []*streamrun.Record) string {
	b.Helper()
	sp, err := newSpool("")
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range results {
		if err := sp.add(func(buf []byte) []byte {
			return appendReceiptRow(buf, r.Result, r.Raw, r.Offset, true, deliveryFlags{})
		}); err != nil {
			b.Fatal(err)
		}
	}
	if err := sp.close(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(sp.remove)
	return sp.path
}

// ingestPath is one way of getting the receipts into a fresh database.
type ingestPath struct {
	name   string
	table  string // the table it fills
	ingest func(*testing.B, *DB, []*streamrun.Record, string)
}

var (
	pathNDJSON    = ingestPath{"ndjson", "receipts", ingestNDJSON}
	pathAppender  = ingestPath{"appender", "receipts", ingestAppender}
	pathReadPlain = ingestPath{"read_ndjson", "plain", readNDJSONPlain}
)

// pathStats are one path's timings over the rounds.
type pathStats struct {
	best, total time.Duration
	peak        int64 // the highest rise of VmHWM over VmRSS at the start of a round
}

// rounds runs every path b.N times, in turn within each round, so drift in
// the load of a shared machine hits all of them alike; each run gets a
// fresh database file.
func rounds(b *testing.B, results []*streamrun.Record, source string, paths []ingestPath) []pathStats {
	b.Helper()
	stats := make([]pathStats, len(paths))
	for i := 0; i < b.N; i++ {
		for j, p := range paths {
			db, err := Open(filepath.Join(b.TempDir(), "bench.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			resetPeakRSS()
			before := procStatus("VmRSS:")
			start := time.Now()
			p.ingest(b, db, results, source)
			took := time.Since(start)
			stats[j].peak = max(stats[j].peak, procStatus("VmHWM:")-before)
			if got := queryInt(b, db, "SELECT count(*) FROM "+p.table); got != int64(len(results)) {
				b.Fatalf("%s: %d rows, want %d", p.name, got, len(results))
			}
			db.Close()
			stats[j].total += took
			if stats[j].best == 0 || took < stats[j].best {
				stats[j].best = took
			}
		}
	}
	b.StopTimer()
	rows := float64(len(results))
	for j, p := range paths {
		b.ReportMetric(rows/stats[j].best.Seconds(), p.name+"-rows/s")
		b.ReportMetric(float64(stats[j].peak)/(1<<20), p.name+"-peak-MB")
		b.Logf("%s: best %s, mean %s, %.0f rows/s (best), peak RSS +%d MB",
			p.name, stats[j].best.Round(time.Millisecond), (stats[j].total / time.Duration(b.N)).Round(time.Millisecond),
			rows/stats[j].best.Seconds(), stats[j].peak>>20)
	}
	return stats
}

// BenchmarkIngest compares the two ingestion paths, and DuckDB's own
// read_ndjson of the receipts file, on the same verified results (-benchtime=3x
// for three rounds; the best round of each is reported).
func BenchmarkIngest(b *testing.B) {
	n := *benchN
	if n == 0 {
		n = 200_000
	}
	c := benchCorpus(b, n)
	results, took := verified(b, c)
	b.Logf("verified %d receipts (signatures checked) in %s: %.0f receipts/s", len(results), took.Round(time.Millisecond), float64(len(results))/took.Seconds())
	b.ResetTimer()
	if *chunkMB > 0 {
		pathNDJSON.ingest = func(b *testing.B, db *DB, results []*streamrun.Record, name string) {
			ingestNDJSONChunks(b, db, results, name, *chunkMB<<20)
		}
	}
	st := rounds(b, results, c.receipts, []ingestPath{pathNDJSON, pathAppender, pathReadPlain})
	b.ReportMetric(st[1].best.Seconds()/st[0].best.Seconds(), "appender/ndjson")
	b.ReportMetric(st[0].best.Seconds()/st[2].best.Seconds(), "ndjson/read_ndjson")
}

// readNDJSONPlain is the yardstick: DuckDB's own read_ndjson of the
// receipts file into a plain table (columns detected by DuckDB).
func readNDJSONPlain(b *testing.B, db *DB, _ []*streamrun.Record, path string) {
	b.Helper()
	if _, err := db.SQL().Exec("CREATE TABLE plain AS SELECT * FROM read_ndjson('" + strings.ReplaceAll(path, "'", "''") + "')"); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoad1M loads 1,000,000 receipts (-benchn) whose signatures were
// checked before timing through Load's own ingestion, and in the same
// rounds has DuckDB read_ndjson the same receipts.jsonl into a plain table
// and insert the load's rows from a spool written before timing (the
// engine's share of the load alone), and only their raw text from it.
// It reports both rates (best round), their ratio, and each one's peak
// resident memory above the resident memory before it (the verified
// results held for the run are not counted).
func BenchmarkLoad1M(b *testing.B) {
	n := *benchN
	if n == 0 {
		n = 1_000_000
	}
	c := benchCorpus(b, n)
	results, took := verified(b, c)
	b.Logf("verified %d receipts (signatures checked) in %s: %.0f receipts/s", len(results), took.Round(time.Millisecond), float64(len(results))/took.Seconds())
	b.ResetTimer()
	sp := writeSpool(b, results)
	spooled := ingestPath{"insert-only", "receipts", insertSpooled(sp)}
	rawOnly := ingestPath{"raw-only", "raw_only", insertRawOnly(sp)}
	st := rounds(b, results, c.receipts, []ingestPath{pathNDJSON, pathReadPlain, spooled, rawOnly})
	b.ReportMetric(st[0].best.Seconds()/st[1].best.Seconds(), "load/read_ndjson")
	b.ReportMetric(st[2].best.Seconds()/st[1].best.Seconds(), "insert-only/read_ndjson")
	b.ReportMetric(st[3].best.Seconds()/st[1].best.Seconds(), "raw-only/read_ndjson")
	b.ReportMetric(float64(len(results))/took.Seconds(), "verify-receipts/s")
}

// procStatus is a /proc/self/status memory field in bytes (0 without /proc).
func procStatus(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// resetPeakRSS sets VmHWM back to the current RSS (Linux clear_refs 5).
func resetPeakRSS() {
	os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
