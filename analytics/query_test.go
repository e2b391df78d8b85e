package analytics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/queries"
)

// fixRow is a receipts row for hand-built fixtures; zero strings are NULL.
type fixRow struct {
	file, source        string
	line                int
	verdict, reasons    string
	actionID, agent     string
	issuer, session     string
	step                int
	tool, fp            string
	nonce, sig, callSig string
	issued              string // RFC 3339
}

func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// fixtureDB opens an in-memory database and inserts rows (and expected
// tools as "server/tool/fingerprint").
func fixtureDB(t *testing.T, rows []fixRow, expected ...string) *DB {
	t.Helper()
	db, err := Open("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	files := map[string]int{}
	for _, r := range rows {
		file := r.file
		if file == "" {
			file = "f1"
		}
		source := r.source
		if source == "" {
			source = file + ".jsonl"
		}
		files[file]++
		verdict := r.verdict
		if verdict == "" {
			verdict = "PASS"
		}
		issued, err := time.Parse(time.RFC3339Nano, r.issued)
		if err != nil {
			t.Fatal(err)
		}
		_, err = db.SQL().Exec(`INSERT INTO receipts (file_sha256, source, line, format, verdict, reasons,
			action_id, agent_id, issuer_id, org_id, session_id, step, action_type, tool_name, tool_fingerprint,
			tool_match, tool_servers, nonce, call_signature, signature_sha256, previous_hash, chain_hash, decision,
			issued_at, day, raw)
			VALUES (?, ?, ?, 'asqav-native', ?, COALESCE(string_split(NULLIF(?, ''), ','), []), ?, ?, ?, ?, ?, ?, 'mcp:tool_call', ?, ?, NULL, NULL, ?, ?, ?, NULL, NULL, 'allow', ?, ?, '{}')`,
			file, source, r.line, verdict, r.reasons, nullable(r.actionID), nullable(r.agent), nullable(r.issuer), nullable(r.issuer),
			nullable(r.session), r.step, nullable(r.tool), nullable(r.fp), nullable(r.nonce), nullable(r.callSig), nullable(r.sig),
			issued.UTC(), issued.UTC().Format(time.DateOnly))
		if err != nil {
			t.Fatal(err)
		}
	}
	for f, n := range files {
		if _, err := db.SQL().Exec(`INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at) VALUES (?, ?, 100, ?, ?, 0, TIMESTAMP '2026-12-01 00:00:00')`, f, f+".jsonl", n, n); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range expected {
		p := strings.Split(e, "/")
		if _, err := db.SQL().Exec(`INSERT INTO expected_tools VALUES (?, ?, ?)`, p[0], p[1], p[2]); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// fixtureRows: 2026-11-01 is the baseline; 2026-11-02 has a collision
// (search A and B), a session change (s2: A then B), first-seen pairs
// (search B, pay X), an unexpected fingerprint (pay X, an unknown tool),
// a replayed nonce and action_id, and a failure.
var fixtureRows = []fixRow{
	{line: 1, actionID: "a1", agent: "ag1", issuer: "org1", session: "s1", step: 0, tool: "search", fp: "A", nonce: "n1", sig: "sig1", issued: "2026-11-01T10:00:00Z"},
	{line: 2, actionID: "a2", agent: "ag1", issuer: "org1", session: "s1", step: 1, tool: "users.list", fp: "U", nonce: "n2", sig: "sig2", issued: "2026-11-01T10:01:00Z"},
	{line: 3, actionID: "a3", agent: "ag2", issuer: "org1", session: "s2", step: 0, tool: "search", fp: "A", nonce: "n3", sig: "sig3", issued: "2026-11-02T09:00:00Z"},
	{line: 4, actionID: "a4", agent: "ag2", issuer: "org1", session: "s2", step: 1, tool: "search", fp: "B", nonce: "n4", sig: "sig4", issued: "2026-11-02T09:00:05Z"},
	{line: 5, actionID: "a5", agent: "ag2", issuer: "org1", session: "s2", step: 2, tool: "pay", fp: "X", nonce: "n5", sig: "sig5", issued: "2026-11-02T09:00:10Z"},
	{line: 6, actionID: "a1", agent: "ag3", issuer: "org1", session: "s3", step: 0, tool: "users.list", fp: "U", nonce: "n1", sig: "sig6", issued: "2026-11-02T11:00:00Z", verdict: "FAIL", reasons: "nonce_replay"},
	{line: 7, actionID: "a7", agent: "ag3", issuer: "org2", session: "s3", step: 1, tool: "users.list", fp: "U", nonce: "n1", sig: "sig7", issued: "2026-11-02T11:00:01Z", verdict: "FAIL", reasons: "bad_signature"},
}

var fixtureExpected = []string{"crm/search/A", "files/search/B", "crm/users.list/U"}

func csvOf(t *testing.T, tb *table.Table) string {
	t.Helper()
	var b bytes.Buffer
	if err := tb.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(b.String(), "\r\n", "\n")
}

// idsOfKeys replaces each {{KEY}} of want by the finding_id of KEY
// as docs/analytics.md defines it, the first 32 hex digits of the SHA-256
// of the row's identifying facts, so that the expected ids follow from
// the documented keys (each query's finding_key) and are not pasted from
// a run. The fixture's file f1 has file_sha256 "f1".
func idsOfKeys(want string) string {
	return findingKeyRef.ReplaceAllStringFunc(want, func(ref string) string {
		sum := sha256.Sum256([]byte(ref[2 : len(ref)-2]))
		return hex.EncodeToString(sum[:])[:32]
	})
}

var findingKeyRef = regexp.MustCompile(`\{\{[^}]*\}\}`)

// TestQueriesOnFixture runs each query on a fixture of seven receipts
// and compares every row, the finding ids computed from the keys the
// queries document.
func TestQueriesOnFixture(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	ctx := context.Background()
	tests := []struct {
		name, day, want string
	}{
		{"collisions", "2026-11-01", "finding,severity,finding_id,techniques,day,tool_name,fingerprints,tool_fingerprint,expected_server,expected,receipts,agents,sessions,failed,first_seen,last_seen,event_time\n"},
		{"collisions", "2026-11-02", `finding,severity,finding_id,techniques,day,tool_name,fingerprints,tool_fingerprint,expected_server,expected,receipts,agents,sessions,failed,first_seen,last_seen,event_time
collisions,info,{{collisions|2026-11-02|search|A|crm}},"SAFE-T1004,MCP09:2025,T1036",2026-11-02,search,2,A,crm,match,1,1,1,0,2026-11-02T09:00:00.000000Z,2026-11-02T09:00:00.000000Z,2026-11-02T09:00:00.000000Z
collisions,info,{{collisions|2026-11-02|search|B|files}},"SAFE-T1004,MCP09:2025,T1036",2026-11-02,search,2,B,files,match,1,1,1,0,2026-11-02T09:00:05.000000Z,2026-11-02T09:00:05.000000Z,2026-11-02T09:00:05.000000Z
`},
		{"drift", "2026-11-01", "finding,severity,finding_id,techniques,day,kind,tool_name,tool_fingerprint,previous_fingerprint,expected,expected_server,previous_expected,receipts,first_seen,last_seen,agent_id,session_id,action_id,source,line,event_time\n"},
		{"drift", "2026-11-02", `finding,severity,finding_id,techniques,day,kind,tool_name,tool_fingerprint,previous_fingerprint,expected,expected_server,previous_expected,receipts,first_seen,last_seen,agent_id,session_id,action_id,source,line,event_time
drift,high,{{drift|first_seen|2026-11-02|pay|X}},"SAFE-T1201,MCP03:2025,T1195",2026-11-02,first_seen,pay,X,,unknown,,,1,2026-11-02T09:00:10.000000Z,2026-11-02T09:00:10.000000Z,ag2,s2,a5,f1.jsonl,5,2026-11-02T09:00:10.000000Z
drift,low,{{drift|first_seen|2026-11-02|search|B}},"SAFE-T1201,MCP03:2025,T1195",2026-11-02,first_seen,search,B,,match,files,,1,2026-11-02T09:00:05.000000Z,2026-11-02T09:00:05.000000Z,ag2,s2,a4,f1.jsonl,4,2026-11-02T09:00:05.000000Z
drift,info,{{drift|session_change|2026-11-02|search|B|A|f1:4}},"SAFE-T1201,MCP03:2025,T1195",2026-11-02,session_change,search,B,A,match,files,match,1,2026-11-02T09:00:05.000000Z,2026-11-02T09:00:05.000000Z,ag2,s2,a4,f1.jsonl,4,2026-11-02T09:00:05.000000Z
drift,high,{{drift|unexpected_fingerprint|2026-11-02|pay|X}},"SAFE-T1201,MCP03:2025,T1195",2026-11-02,unexpected_fingerprint,pay,X,,unknown,,,1,2026-11-02T09:00:10.000000Z,2026-11-02T09:00:10.000000Z,ag2,s2,a5,f1.jsonl,5,2026-11-02T09:00:10.000000Z
`},
		{"replays", "2026-11-02", `finding,severity,finding_id,techniques,day,kind,value,occurrence,occurrences,verdict,action_id,agent_id,issuer_id,issued_at,source,line,first_action_id,first_issued_at,first_source,first_line,event_time
replays,high,{{replays|action_id||a1|f1:6}},"SAFE-T1103,T1565.001",2026-11-02,action_id,a1,2,2,FAIL,a1,ag3,org1,2026-11-02T11:00:00.000000Z,f1.jsonl,6,a1,2026-11-01T10:00:00.000000Z,f1.jsonl,1,2026-11-02T11:00:00.000000Z
replays,high,{{replays|nonce|org1|n1|f1:6}},"SAFE-T1103,T1565.001",2026-11-02,nonce,n1,2,2,FAIL,a1,ag3,org1,2026-11-02T11:00:00.000000Z,f1.jsonl,6,a1,2026-11-01T10:00:00.000000Z,f1.jsonl,1,2026-11-02T11:00:00.000000Z
`},
		{"failures", "2026-11-02", `finding,severity,finding_id,techniques,day,reasons,verdict,format,action_id,agent_id,issuer_id,session_id,step,tool_name,issued_at,source,line,event_time
failures,high,{{failures|f1:7}},"SAFE-T1103,T1565.001,MCP08:2025",2026-11-02,bad_signature,FAIL,asqav-native,a7,ag3,org2,s3,1,users.list,2026-11-02T11:00:01.000000Z,f1.jsonl,7,2026-11-02T11:00:01.000000Z
failures,high,{{failures|f1:6}},"SAFE-T1103,T1565.001,MCP08:2025",2026-11-02,nonce_replay,FAIL,asqav-native,a1,ag3,org1,s3,0,users.list,2026-11-02T11:00:00.000000Z,f1.jsonl,6,2026-11-02T11:00:00.000000Z
`},
		{"days", "", `day,receipts,pass,fail,incomplete,undated,first_issued_at,last_issued_at,unknown_format
2026-11-01,2,2,0,0,0,2026-11-01T10:00:00.000000Z,2026-11-01T10:01:00.000000Z,0
2026-11-02,5,3,2,0,0,2026-11-02T09:00:00.000000Z,2026-11-02T11:00:01.000000Z,0
`},
	}
	for _, tt := range tests {
		t.Run(tt.name+"/"+tt.day, func(t *testing.T) {
			tb, err := runQuery(ctx, db.SQL(), tt.name, tt.day)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := csvOf(t, tb), idsOfKeys(tt.want); got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestQueriesAllDays: a NULL day gives the union of the days.
func TestQueriesAllDays(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, fixtureRows, fixtureExpected...)
	ctx := context.Background()
	for _, name := range queries.Findings() {
		all, err := runQuery(ctx, db.SQL(), name, "")
		if err != nil {
			t.Fatal(err)
		}
		var union []string
		for _, day := range []string{"2026-11-01", "2026-11-02"} {
			tb, err := runQuery(ctx, db.SQL(), name, day)
			if err != nil {
				t.Fatal(err)
			}
			union = append(union, strings.SplitN(csvOf(t, tb), "\n", 2)[1])
		}
		if got, want := strings.SplitN(csvOf(t, all), "\n", 2)[1], strings.Join(union, ""); got != want {
			t.Errorf("%s: every day:\n%s\nwant the days' rows:\n%s", name, got, want)
		}
	}
}

// TestQueryFiles: every .sql file parses and runs in DuckDB, on an empty
// database, with a day and with NULL. (queries.TestFiles checks the
// header, the one parameter and portability.)
func TestQueryFiles(t *testing.T) {
	t.Parallel()
	db := fixtureDB(t, nil)
	names, err := fs.Glob(queries.FS(), "*.sql")
	if err != nil || len(names) < len(queries.Findings()) {
		t.Fatalf("queries: %v %v", names, err)
	}
	for _, name := range names {
		base := strings.TrimSuffix(name, ".sql")
		for _, day := range []string{"2026-11-01", ""} {
			tb, err := runQuery(context.Background(), db.SQL(), base, day)
			if err != nil {
				t.Errorf("%s, day %q: %v", base, day, err)
				continue
			}
			// A finding query's rows open with what a SIEM keys on, and its
			// header says why each severity.
			if slices.Contains(queries.Findings(), base) {
				q, _ := queries.Lookup(base)
				if len(tb.Columns) < 3 || strings.Join(tb.Columns[:3], ",") != "finding,severity,finding_id" || tb.Col("event_time") < 0 || !strings.Contains(q.Text, "\n-- Severity") {
					t.Errorf("%s: columns %v, or no Severity section in its header", base, tb.Columns)
				}
			}
		}
	}
}
