-- The SQL twin of verify_forged_receipt.yml over an audit database: the
-- receipts whose signature did not verify (bad_signature).
SELECT source, line FROM receipts WHERE 'bad_signature' = ANY(reasons) ORDER BY source, line
