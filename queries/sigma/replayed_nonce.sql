-- The SQL twin of verify_replayed_nonce.yml over an audit database: the
-- receipts that reuse an earlier receipt's nonce (nonce_replay).
SELECT source, line FROM receipts WHERE 'nonce_replay' = ANY(reasons) ORDER BY source, line
