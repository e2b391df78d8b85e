package analytics

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/receiptverify/verify/queries"
)

// benchRows is the size of the synthetic database the query benchmark
// runs on.
const benchRows = 1_000_000

var (
	benchOnce sync.Once
	benchDB   *DB
	benchErr  error
)

// syntheticSQL fills receipts with benchRows rows over seven days, made in
// SQL (no signing): sessions of 25 steps in time order, 50 agents, two
// issuers, 20 tools of which three have two servers' fingerprints and
// 1 in 10,000 calls a drifted one, 1 in 5,000 nonces replayed, 1 in 97
// receipts failed; raw about 600 bytes.
var syntheticSQL = []string{
	`INSERT INTO receipts BY NAME
	 SELECT 'bench' || (i // 200000) AS file_sha256,
	        'bench-' || (i // 200000) || '.jsonl' AS source,
	        i % 200000 + 1 AS line,
	        'asqav-native' AS format,
	        CASE WHEN i % 97 = 0 THEN 'FAIL' ELSE 'PASS' END AS verdict,
	        CASE WHEN i % 97 = 0 THEN ['bad_signature'] ELSE [] END AS reasons,
	        'act_' || substr(md5('a' || i), 1, 20) AS action_id,
	        'agent-' || ((i // 25) % 50) AS agent_id,
	        'org_' || ((i // 25) % 50 % 2) AS issuer_id,
	        'org_' || ((i // 25) % 50 % 2) AS org_id,
	        'sess_' || (i // 25) AS session_id,
	        i % 25 AS step,
	        'mcp:tool_call' AS action_type,
	        'tool' || (hash(i) % 20) AS tool_name,
	        substr(md5('tool' || (hash(i) % 20) || ':' ||
	              CASE WHEN i % 10000 = 7 THEN 9 WHEN hash(i) % 20 < 3 THEN hash(i, 1) % 2 ELSE 0 END), 1, 32) AS tool_fingerprint,
	        'match' AS tool_match, CAST(NULL AS VARCHAR[]) AS tool_servers,
	        md5('n' || CASE WHEN i % 5000 = 4999 THEN i - 1 ELSE i END) AS nonce,
	        NULL AS call_signature,
	        sha256('s' || i) AS signature_sha256,
	        md5('p' || i) AS previous_hash, NULL AS chain_hash, 'allow' AS decision,
	        TIMESTAMP '2026-11-01 00:00:00' + to_microseconds(CAST(i * 604800000000 // 1000000 AS BIGINT)) AS issued_at,
	        CAST(TIMESTAMP '2026-11-01 00:00:00' + to_microseconds(CAST(i * 604800000000 // 1000000 AS BIGINT)) AS DATE) AS day,
	        repeat('{"payload":{}}', 40) AS raw,
	        NULL AS nonce_key, NULL AS trust_sha256
	 FROM range(1000000) t(i)`,
	`INSERT INTO expected_tools
	 SELECT 'server' || v, 'tool' || t, substr(md5('tool' || t || ':' || v), 1, 32)
	 FROM range(20) a(t), range(2) b(v) WHERE v = 0 OR t < 3`,
	`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) SELECT DISTINCT file_sha256, source, 1, 200000, 200000, 0, TIMESTAMP '2026-12-01 00:00:00' FROM receipts`,
}

func benchDatabase(b *testing.B) *DB {
	benchOnce.Do(func() {
		dir, err := filepathTemp()
		if err != nil {
			benchErr = err
			return
		}
		benchDB, benchErr = Open(filepath.Join(dir, "bench.duckdb"))
		if benchErr != nil {
			return
		}
		start := time.Now()
		for _, s := range syntheticSQL {
			if _, benchErr = benchDB.SQL().Exec(s); benchErr != nil {
				return
			}
		}
		b.Logf("synthetic database: %d rows in %v", benchRows, time.Since(start).Round(time.Millisecond))
	})
	if benchErr != nil {
		b.Fatal(benchErr)
	}
	return benchDB
}

// BenchmarkQueries1M times each query for one day (2026-11-04, about
// 143,000 of the 1,000,000 rows) and for every day at once:
//
//	go test -run '^$' -bench Queries1M -benchtime 5x ./analytics/
func BenchmarkQueries1M(b *testing.B) {
	db := benchDatabase(b)
	ctx := context.Background()
	for _, q := range queries.All() {
		for _, day := range []string{"2026-11-04", ""} {
			name := q.Name + "/day"
			if day == "" {
				name = q.Name + "/all"
			}
			b.Run(name, func(b *testing.B) {
				rows := 0
				for b.Loop() {
					t, err := runQuery(ctx, db.SQL(), q.Name, day)
					if err != nil {
						b.Fatal(err)
					}
					rows = len(t.Rows)
				}
				b.ReportMetric(float64(rows), "rows")
			})
		}
	}
}

// BenchmarkReport1M times a whole report (every query, the files) of one
// day of the synthetic database.
func BenchmarkReport1M(b *testing.B) {
	db := benchDatabase(b)
	dir := b.TempDir()
	for b.Loop() {
		if _, err := runReport(context.Background(), db.SQL(), ReportOptions{Day: "2026-11-04", Dir: dir}); err != nil {
			b.Fatal(err)
		}
	}
}

// filepathTemp is a directory for the shared benchmark database, removed
// with the process's temporary files by the OS, not by one benchmark.
func filepathTemp() (string, error) { return os.MkdirTemp("", "verify-bench-") }
