// Package canon reproduces, byte for byte, the canonical JSON forms that
// receipt producers hash and sign. Each [Dialect] is a named profile of how
// a document is read (duplicate names, lone surrogates, depth) and written
// (member order, number and string formatting):
//
//   - [RFC8785]: RFC 8785 JCS, strict input.
//   - [Asqav], [AsqavCodePoint]: the Asqav cloud signer, Python's json.dumps
//     with sort_keys; member order by UTF-16 units from 2026-09-02T18:05:09Z
//     ([AsqavAt] picks by issue time), by code points before.
//   - [Overturn]: the Overturn fingerprint v1 contract, JavaScript semantics.
//   - [UndoLogP3], [UndoLogR3], [UndoLogP1], [UndoLogR1], [UndoLogT2]: UndoLog call
//     signature canonical args, Python and Rust engines, current and older.
//   - [Pipelock]: pipelock's Go reference signer, RFC 8785's shape with
//     code-point order, Go's encoding/json escapes and integers only.
//
// Every dialect parses the raw bytes with one parser ([Parse]) that keeps
// what encoding/json loses: each number's literal, member order as written,
// and lone surrogates (as WTF-8) where a dialect allows them. Rejections are
// *[Error] values with a stable [Reason], the byte offset and the JSON path.
// Size and depth limits live in internal/limits.
package canon
