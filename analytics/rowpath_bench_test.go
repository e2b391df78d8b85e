package analytics

// BenchmarkRowPaths compares the ways of handing DuckDB the load's
// receipts rows, on the row shape the load stores (every receipts column,
// the line kept only for receipts that did not PASS), each in one
// transaction into a fresh database, in turn within each round:
//
//	go test -run=^$ -bench=RowPaths -benchtime=3x -benchn=100000 ./analytics/
//	go test -tags duckdb_arrow -run=^$ -bench=RowPaths -benchtime=3x -benchn=100000 ./analytics/
//
// spool: the load's path, rows encoded as NDJSON into a temporary file and
// inserted with one INSERT ... SELECT FROM read_ndjson. appender: the
// driver's Appender, one AppendRow per receipt. arrow (with the
// duckdb_arrow build tag, which the driver's Arrow interface needs): Arrow
// record batches of 122,880 rows built from the results and scanned by
// DuckDB through a registered view, one INSERT ... SELECT. Each path's
// time includes making its rows from the verified results (the row
// encoding, the driver values, the Arrow builders), which the load does on
// the verifying goroutines for the spool only; CPU is the process's user
// plus system time over the path, DuckDB's threads included.

import (
	"crypto/sha256"
	"database/sql/driver"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// benchRow is a verified record as the load holds it when it stores the
// row: its result, what was kept of its line, and where the line starts.
type benchRow struct {
	res    *verify.Result
	line   keptLine
	offset int64
}

// keptRows keeps each receipt (not the unreadable lines, which go to
// rejects) with its line as keepLine keeps it.
func keptRows(results []*streamrun.Record) []benchRow {
	rows := make([]benchRow, 0, len(results))
	var off int64
	for _, r := range results {
		l := keptLine{length: int64(len(r.Raw)), sum: sha256.Sum256(r.Raw)}
		if r.Verdict != verify.Pass {
			l.raw, l.has = r.Raw, true
		}
		if r.Verdict != verify.Unreadable {
			rows = append(rows, benchRow{res: r.Result, line: l, offset: off})
		}
		off += int64(len(r.Raw)) + 1
	}
	return rows
}

const (
	benchSHA   = "bench-file"
	benchTrust = "bench-trust"
	benchDay   = "2026-12-01"
)

// rowPath is one way of storing rows into db.
type rowPath struct {
	name  string
	store func(*testing.B, *DB, []benchRow)
}

// arrowRowPath is set by rowpath_arrow_bench_test.go when built with the
// duckdb_arrow tag.
var arrowRowPath *rowPath

func BenchmarkRowPaths(b *testing.B) {
	n := *benchN
	if n == 0 {
		n = 100_000
	}
	c := benchCorpus(b, n)
	results, _ := verified(b, c)
	rows := keptRows(results)
	paths := []rowPath{{"spool", storeSpool}, {"appender", storeAppender}}
	if arrowRowPath != nil {
		paths = append(paths, *arrowRowPath)
	}
	b.ResetTimer()
	wall := make([]time.Duration, len(paths))
	cpu := make([]time.Duration, len(paths))
	var want string // the first path's rows, hashed
	var log []string
	for i := 0; i < b.N; i++ {
		for j, p := range paths {
			db, err := Open(filepath.Join(b.TempDir(), "bench.duckdb"))
			if err != nil {
				b.Fatal(err)
			}
			runtime.GC()
			c0, t0 := processCPU(), time.Now()
			p.store(b, db, rows)
			w, u := time.Since(t0), processCPU()-c0
			if got := queryInt(b, db, "SELECT count(*) FROM receipts"); got != int64(len(rows)) {
				b.Fatalf("%s: %d rows, want %d", p.name, got, len(rows))
			}
			var sum string
			if err := db.SQL().QueryRow("SELECT CAST(sum(hash(r)) AS VARCHAR) FROM receipts r").Scan(&sum); err != nil {
				b.Fatal(err)
			}
			if j == 0 {
				want = sum
			} else if sum != want {
				b.Fatalf("%s: rows differ from %s's", p.name, paths[0].name)
			}
			db.Close()
			log = append(log, fmt.Sprintf("round %d %s: wall %s, CPU %s", i+1, p.name, w.Round(time.Millisecond), u.Round(time.Millisecond)))
			if wall[j] == 0 || w < wall[j] {
				wall[j] = w
			}
			if cpu[j] == 0 || u < cpu[j] {
				cpu[j] = u
			}
		}
	}
	b.StopTimer()
	b.Logf("%d rows (%.1f%% with their line), spool encoding %.2f µs/row of the spool's CPU\n%s",
		len(rows), 100*float64(withLine(rows))/float64(len(rows)), float64(spoolEncode.Microseconds())/float64(len(rows)), strings.Join(log, "\n"))
	for j, p := range paths {
		b.ReportMetric(float64(wall[j].Microseconds())/float64(len(rows)), p.name+"-wall-µs/row")
		b.ReportMetric(float64(cpu[j].Microseconds())/float64(len(rows)), p.name+"-cpu-µs/row")
	}
}

// processCPU is the process's user plus system time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// storeSpool is the load's path: rows encoded into an NDJSON spool, then
// one INSERT from read_ndjson.
func storeSpool(b *testing.B, db *DB, rows []benchRow) {
	sp, err := newSpool("")
	if err != nil {
		b.Fatal(err)
	}
	defer sp.remove()
	t0 := processCPU()
	for _, r := range rows {
		err := sp.add(func(buf []byte) []byte {
			return appendReceiptRowAt(buf, r.res, int64(r.res.Line), r.line, r.offset, r.line.has, deliveryFlags{})
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := sp.close(); err != nil {
		b.Fatal(err)
	}
	if t := processCPU() - t0; spoolEncode == 0 || t < spoolEncode {
		spoolEncode = t
	}
	inOneTransaction(stmt{receiptInsert + sp.read(receiptColumns), []any{benchSHA, "bench", benchDay, benchTrust}})(b, db, nil, "")
}

// spoolEncode is the least CPU time storeSpool took to write its spool.
var spoolEncode time.Duration

func withLine(rows []benchRow) (n int) {
	for _, r := range rows {
		if r.line.has {
			n++
		}
	}
	return n
}

// insertColumnList are the receipts columns receiptInsert fills, in its
// order.
var insertColumnList = []string{"file_sha256", "source", "line", "byte_offset", "byte_length", "line_sha256",
	"format", "verdict", "reasons", "action_id", "agent_id",
	"issuer_id", "org_id", "session_id", "step", "action_type", "tool_name", "tool_fingerprint", "tool_match",
	"tool_servers", "nonce", "call_signature", "signature_sha256", "previous_hash", "chain_hash", "chain_scope", "decision",
	"issued_at", "day", "raw", "nonce_key", "trust_sha256"}

// storeAppender appends the rows through the driver's Appender.
func storeAppender(b *testing.B, db *DB, rows []benchRow) {
	withDriverConn(b, db, func(dc driver.Conn) error {
		app, err := duckdb.NewAppenderWithColumns(dc, "", "", "receipts", insertColumnList)
		if err != nil {
			return err
		}
		vals := make([]driver.Value, len(insertColumnList))
		loadDay, _ := time.Parse(time.DateOnly, benchDay)
		var hexSum [64]byte
		for _, r := range rows {
			res, f := r.res, &r.res.Fields
			var step, issued, servers, raw, scope driver.Value
			if f.Step != nil {
				step = *f.Step
			}
			day := loadDay
			if t, ok := res.IssuedTime(); ok {
				t = time.UnixMicro(t.UnixMicro()).UTC()
				issued, day = t, time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
			}
			if len(f.ToolServers) > 0 {
				servers = f.ToolServers
			}
			if r.line.has {
				raw = string(r.line.raw)
			}
			if res.Fingerprints.ChainHash != "" {
				scope = streamrun.ScopeDigest(res.ScopeKey())
			}
			hexEncode(hexSum[:], r.line.sum[:])
			copy(vals, []driver.Value{benchSHA, "bench", int64(res.Line), r.offset, r.line.length, string(hexSum[:]),
				res.Format, string(res.Verdict), reasonStrings(res.Reasons), nilIfEmpty(f.ActionID), nilIfEmpty(f.AgentID),
				nilIfEmpty(f.IssuerID), nilIfEmpty(f.OrgID), nilIfEmpty(f.SessionID), step, nilIfEmpty(f.ActionType),
				nilIfEmpty(f.ToolName), nilIfEmpty(f.ToolFingerprint), toolMatchOf(res),
				servers, nilIfEmpty(f.Nonce), nilIfEmpty(res.Fingerprints.CallSignature), nilIfEmpty(signatureSHA256(f)),
				nilIfEmpty(f.PreviousHash), nilIfEmpty(res.Fingerprints.ChainHash), scope, nilIfEmpty(f.Decision),
				issued, day, raw, nilIfEmpty(streamrun.NonceDigest(res.NonceKey())), benchTrust})
			if err := app.AppendRow(vals...); err != nil {
				return err
			}
		}
		return app.Close()
	})
}

// withDriverConn runs fn on a driver connection inside one transaction.
func withDriverConn(b *testing.B, db *DB, fn func(driver.Conn) error) {
	b.Helper()
	conn, err := db.SQL().Conn(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(b.Context(), "BEGIN TRANSACTION"); err != nil {
		b.Fatal(err)
	}
	if err := conn.Raw(func(dc any) error { return fn(dc.(driver.Conn)) }); err != nil {
		b.Fatal(err)
	}
	if _, err := conn.ExecContext(b.Context(), "COMMIT"); err != nil {
		b.Fatal(err)
	}
}

func hexEncode(dst, src []byte) {
	const digits = "0123456789abcdef"
	for i, c := range src {
		dst[2*i], dst[2*i+1] = digits[c>>4], digits[c&15]
	}
}
