// Runs statements on ClickHouse (chDB, in process) for the engine tests.
//
// Reads one JSON object from stdin:
//   {"setup": ["SET ...", "CREATE VIEW ..."],
//    "queries": [{"id": "...", "sql": "...", "params": {"day": "2026-11-01"} | null}]}
// runs the setup statements in one session, then each query (bound with
// queryBind when params is not null), and writes one JSON line per query:
//   {"id": "...", "result": <ClickHouse JSONCompact output>} or
//   {"id": "...", "error": "..."}
// The result is ClickHouse's own JSON text, passed through unparsed, so
// 64-bit integers keep every digit.
import { Session } from "chdb";
import { readFileSync, writeSync } from "node:fs";

const req = JSON.parse(readFileSync(0, "utf8"));
const session = new Session();
let failed = false;
try {
  for (const stmt of req.setup ?? []) {
    session.query(stmt, "CSV");
  }
  for (const q of req.queries ?? []) {
    let line;
    try {
      const out = q.params == null
        ? session.query(q.sql, "JSONCompact")
        : session.queryBind(q.sql, q.params, "JSONCompact");
      line = '{"id":' + JSON.stringify(q.id) + ',"result":' + out + "}\n";
    } catch (e) {
      line = JSON.stringify({ id: q.id, error: String(e && e.message || e) }) + "\n";
    }
    writeSync(1, line);
  }
} catch (e) {
  process.stderr.write("setup: " + String(e && e.message || e) + "\n");
  failed = true;
} finally {
  session.cleanup();
}
process.exit(failed ? 1 : 0);
