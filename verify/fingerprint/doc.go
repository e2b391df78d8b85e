// Package fingerprint recomputes the identifiers that tool-call records carry
// instead of (or besides) a signature, byte for byte as their producers do:
//
//   - Asqav action fingerprint: "sha256:" + hex SHA-256 of the canonical
//     {action_type, context}; payload digest {hash, size} of the canonical
//     context; tool_fingerprint, the first 32 hex of SHA-256 of the
//     canonical {tool_name, schema}.
//   - Overturn v1 fingerprint: SHA-256 of kind "\n" name "\n" canonical
//     selected args, under the overturn-v1 dialect.
//   - UndoLog call signature: BLAKE3-256 of the session UUID bytes, step and
//     length-prefixed tool name and canonical args, and the FNV-1a advisory
//     lock key derived from it.
//
// Each function works on values parsed by package canon, so a number keeps
// its literal (1.0 and 1 stay apart where the dialect tells them apart).
// The *Record functions read one JSON record as the `verify fingerprint`
// command does.
package fingerprint
