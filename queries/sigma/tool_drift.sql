-- The SQL twin of verify_tool_drift.yml over an audit database: the
-- receipts whose tool fingerprint matches no expected server's schema for
-- its tool name (tool_match drift; the load keeps it as a drift finding).
SELECT source, line FROM receipts WHERE tool_match = 'drift' ORDER BY source, line
