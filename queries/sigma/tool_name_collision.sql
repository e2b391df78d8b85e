-- The SQL twin of verify_tool_name_collision.yml over an audit database:
-- a tool name used on one UTC day with the fingerprints of two or more
-- expected servers (receipts whose fingerprint matches an expected
-- server's schema, as the base rule verify_tool_call_receipt.yml selects).
SELECT tool_name, CAST(day AS VARCHAR) AS day
FROM receipts
WHERE tool_match = 'match' AND tool_name IS NOT NULL
GROUP BY tool_name, day
HAVING COUNT(DISTINCT tool_fingerprint) >= 2
ORDER BY day, tool_name
