// Package receiptgen writes deterministic corpora of signed Asqav
// payload-mode receipts with planted anomalies, and the truth about what
// was planted, for testing and benchmarking the verifier and analytics.
// With a [Mix], some of the lines are receipts of other formats (Asqav hash
// mode, DSSE, agentreceipts), so that a corpus shows them side by side.
//
// # Determinism
//
// Every choice comes from one PCG stream seeded with [Config.Seed]: key
// seeds (ML-DSA NewKeyFromSeed, Ed25519 NewKeyFromSeed), identifiers,
// times, tools, arguments and anomaly placement. ML-DSA signs in FIPS 204's
// deterministic mode with an empty context. The same Config writes the
// same bytes, whatever [Config.Workers].
//
// # Layout
//
//	keys/jwks.json          Asqav JWKS: one key per agent, then one revoked agent key
//	schemas/<server>.json   MCP tools/list results: crm, helpdesk, files, billing
//	receipts.jsonl          one receipt per line, compact UTF-8 JSON (receipts.jsonl.gz with Gzip)
//	truth.jsonl             one line per planted anomaly, then one per name collision,
//	                        then one per completeness plant
//	keys/witness.json       with completeness plants: the checkpoint witness's Ed25519 key
//	checkpoints.jsonl       with completeness plants: C2SP signed notes naming chain heads
//
// A receipt is {"payload":{...},"signature":{"alg","kid","sig"},"anchors":[]}
// with sig in base64url without padding over the canonical payload in the
// Asqav dialect in force at issued_at ([canon.AsqavAt]). The payload's
// top-level members are written in a fixed, non-sorted order (v, type,
// action_id, agent_id, issuer_id, org_id, session_id, step, action_type,
// tool_name, tool_fingerprint, context, action_ref, payload_digest, nonce,
// issued_at, expires_at, decision, previousReceiptHash), nested values in
// canonical form. Each (agent, session) is one chain starting at the
// genesis hash; lines are sorted by issued_at (microseconds, UTC, inside
// [Start, Start+Days)), so sessions interleave.
//
// # Anomalies
//
// Rate × N receipts carry exactly one anomaly each, the eight kinds in
// even shares (see [Kinds]); [Expected] gives the reason and axis a stream
// verification reports:
//
//	tampered_payload    decision changed after signing; only on a chain's last receipt   bad_signature / signature
//	tampered_signature  one bit of the signature flipped                                 bad_signature / signature
//	revoked_key         signed by the revoked agent's key (its receipts are all planted)  key_revoked / key_status
//	chain_break         links to the last receipt of another session, earlier in the file chain_break / chain
//	fork                an extra receipt naming a predecessor already named above it      chain_fork / chain
//	absent              its predecessor was signed but left out of the file               chain_absent / chain
//	replayed_nonce      reuses the nonce of an earlier receipt of the same issuer         nonce_replay / nonce
//	schema_drift        tool_fingerprint of its tool's schema with a property added       tool_drift / tool_fingerprint
//
// Nothing else fires: action_ids and nonces are unique except where
// planted, the receipts an anomaly leans on (the tail a break names, the
// predecessor of a fork, the source of a nonce) are left clean, and
// planted receipts call only tools that no two servers share. N counts the
// lines written: an absent anomaly removes a receipt that was generated.
//
// The servers share three tool names (search, users.list,
// tickets.create) with different input schemas; clean receipts calling one
// pick a server at random. truth.jsonl records each (tool name, UTC day)
// on which receipts carried more than one server's fingerprint for it, as
// a name_collision with line 0.
//
// # Completeness
//
// [Config.Completeness] sets of six sessions each are planted at the chain
// level, where every receipt the archive holds still verifies: a tail
// deleted, a session removed, a chain rewritten by the key's holder with
// its hashes recomputed, each once under a checkpoint naming the chain's
// head as first signed and once without. checkpoints.jsonl (for
// --checkpoints) also covers one clean chain per set, which is complete.
// truth.jsonl lists the covered plants as kind truncated, the verdict a
// completeness check must give, and the others as no_evidence, which it
// must not report: nothing signed says anything is missing.
//
// # truth.jsonl
//
// One [Record] per line, anomalies by line number first:
//
//	{"line":34,"action_id":"act_…","kind":"fork","reason":"chain_fork","axis":"chain","day":"2026-11-01","note":"…"}
//	{"line":0,"kind":"name_collision","reason":"collision","day":"2026-11-01","tool_name":"search","fingerprints":["…","…"],"servers":["files","crm"],"note":"…"}
//	{"line":0,"kind":"truncated","reason":"truncated","day":"2026-11-06","note":"…","plant":"tail_deleted","agent_id":"agent-06-…","session_id":"sess_…","chain_scope":"65b1…"}
package receiptgen
