-- The SQL twin of verify_revoked_key.yml over an audit database: the
-- receipts signed with a key revoked before they were issued.
SELECT source, line FROM receipts WHERE 'key_revoked' = ANY(reasons) ORDER BY source, line
