package analytics

import (
	"context"
	"database/sql"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
)

// archivePrior is the database as the stream's Prior: every receipt loaded
// before, so that a load judges chains and nonces against the whole
// archive as one load of everything would. A chain crossing from an
// earlier load into the new files (a session that spans midnight, say)
// resolves; a new receipt naming a predecessor that an archived receipt
// already names is a fork; a nonce an archived receipt of the issuer used
// is a replay.
//
// A stored claim (receipts.claim: a receipt whose signature did not
// verify) answers only whether a chain hash is held, as the stream's index
// counts one of the input (streamrun.IndexEntry.Claim): it names no
// predecessor, begins no chain and uses no nonce for a later load.
//
// Each question is one join of the keys asked, staged in a temporary
// table, with the receipts table, which reads the columns joined on of
// every stored receipt: the load asks in batches of archivePriorBatch
// keys (streamrun.Options.PriorBatch), so that a day's load reads them once
// per kind of question, not once per 4,096 keys, and costs about the same
// onto an empty database as onto one of 400,000 receipts.
type archivePrior struct {
	db *sql.DB

	mu sync.Mutex
	// named are the keys asked of Links (chain hashes, first 32 hex
	// characters) that a stored receipt names as its predecessor, its
	// previous_hash read in lower case as relink reads it: only a file
	// holding one of them has stored receipts to judge again.
	named map[string]bool
	// exclude, when set, is a file_sha256 whose receipts the archive
	// leaves out: a file judged again against the others (reverify).
	exclude string
}

// others is the condition that leaves out the excluded file's rows of r.
func (p *archivePrior) others() string {
	if p.exclude == "" {
		return ""
	}
	return " AND r.file_sha256 <> " + sqltext.String(p.exclude)
}

var (
	_ streamrun.PriorScopes = (*archivePrior)(nil)
	_ streamrun.PriorOrders = (*archivePrior)(nil)
)

// archivePriorBatch is the most keys one question to the archive carries
// (streamrun.Options.PriorBatch): at about 150 bytes a key held by the
// stream, 40 MB at most, and one question per kind for a load of up to
// 262,144 receipts.
const archivePriorBatch = 1 << 18

func newArchivePrior(db *sql.DB) *archivePrior {
	return &archivePrior{db: db, named: map[string]bool{}}
}

// namesStored reports whether a stored receipt may name chainHash (a
// receipt of the file being loaded) as its predecessor, as far as the
// questions asked so far tell: a chain hash that is not lower-case hex is
// not asked by its prefix, and may be.
func (p *archivePrior) namesStored(chainHash string) bool {
	if len(chainHash) < 32 {
		return true
	}
	k := chainHash[:32]
	for i := 0; i < len(k); i++ {
		if c := k[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return true
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.named[k]
}

// withKeys runs fn on one connection holding the temporary table
// prior_keys (key VARCHAR) filled with keys; it does nothing when no
// receipt is stored.
func (p *archivePrior) withKeys(ctx context.Context, keys []string, fn func(conn *sql.Conn) error) error {
	conn, err := p.db.Conn(ctx) // the temporary table lives on one connection
	if err != nil {
		return err
	}
	defer conn.Close()
	var loaded int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM receipts LIMIT 1)").Scan(&loaded); err != nil || loaded == 0 {
		return err
	}
	if _, err := conn.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE prior_keys (key VARCHAR)"); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "DROP TABLE IF EXISTS prior_keys")
	if _, err := conn.ExecContext(ctx, "INSERT INTO prior_keys SELECT unnest($1::VARCHAR[])", keys); err != nil {
		return err
	}
	return fn(conn)
}

func (p *archivePrior) Links(ctx context.Context, prefixes []string) (map[string]streamrun.PriorLink, error) {
	out := map[string]streamrun.PriorLink{}
	err := p.withKeys(ctx, prefixes, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT l.key, r.chain_scope, CASE WHEN r.chain_scope IS NULL THEN r.raw END
			FROM prior_keys l JOIN receipts r ON substr(r.chain_hash, 1, 32) = l.key`+p.others())
		if err != nil {
			return err
		}
		for rows.Next() {
			var prefix string
			var digest, raw sql.NullString
			if err := rows.Scan(&prefix, &digest, &raw); err != nil {
				rows.Close()
				return err
			}
			pl := out[prefix]
			if digest.Valid {
				pl.ScopeDigest = digest.String // the load's record of the scope
			} else {
				// A row stored before chain_scope was: the scope is the
				// format's, read from the receipt as stored, the same rule
				// the stream applies to the input.
				scope, err := verify.ChainScope([]byte(raw.String))
				if !raw.Valid || err != nil {
					continue // a stored line that is no receipt owns no chain hash
				}
				pl.Scope = scope
			}
			pl.Found = true
			out[prefix] = pl
		}
		if err := rows.Close(); err != nil {
			return err
		}
		// Named as the stream reads previous_hash; in lower case, as
		// relink does (namesStored).
		rows, err = conn.QueryContext(ctx, `
			SELECT l.key, bool_or(substr(r.previous_hash, 1, 32) = l.key)
			FROM prior_keys l JOIN receipts r ON lower(substr(r.previous_hash, 1, 32)) = l.key
			WHERE r.claim IS NOT TRUE`+p.others()+`
			GROUP BY l.key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		var lower []string
		for rows.Next() {
			var prefix string
			var named bool
			if err := rows.Scan(&prefix, &named); err != nil {
				return err
			}
			lower = append(lower, prefix)
			if named {
				pl := out[prefix]
				pl.Named = true
				out[prefix] = pl
			}
		}
		p.mu.Lock()
		for _, k := range lower {
			p.named[k] = true
		}
		p.mu.Unlock()
		return rows.Err()
	})
	return out, err
}

// Scopes answers streamrun.PriorScopes: the chain scopes (by ScopeDigest, as
// chain_scope stores them) of which a receipt with a chain hash is stored
// that stands before the input's first receipt of the scope as the stream
// orders a chain's receipts (streamrun.ScopeQuery.Order): one naming no
// predecessor (previous_hash NULL, a genesis), or one standing before it
// in receiptOrder that is not it delivered again (another chain hash);
// any receipt of the scope for a query without an Order. So a load of a
// grown log or of the next day judges a receipt missing at the boundary
// as one load of everything would, whatever the receipts' issue times,
// and a day loaded after the next one is not judged by the later
// receipts.
func (p *archivePrior) Scopes(ctx context.Context, qs []streamrun.ScopeQuery) (map[string]bool, error) {
	keys := make([]string, len(qs))
	for i, q := range qs {
		keys[i] = q.Digest + "|"
		if q.HasOrder {
			issued, sum := orderParts(q.Order)
			keys[i] += strconv.FormatInt(issued, 10) + "|" + sum + "|" + q.Own
		}
	}
	out := map[string]bool{}
	err := p.withKeys(ctx, keys, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT DISTINCT k.key
			FROM prior_keys k
			JOIN receipts r ON r.chain_scope = split_part(k.key, '|', 1)
			WHERE r.claim IS NOT TRUE
			  AND (split_part(k.key, '|', 2) = ''
			   OR (substr(COALESCE(r.chain_hash, ''), 1, 32) <> split_part(k.key, '|', 4)
			       AND (COALESCE(r.previous_hash, '') = ''
			            OR (COALESCE(epoch_us(r.issued_at), `+noIssueUs+`), COALESCE(substr(r.line_sha256, 1, 32), 'g'))
			             < (CAST(split_part(k.key, '|', 2) AS BIGINT), split_part(k.key, '|', 3)))))`+p.others())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				return err
			}
			d, _, _ := strings.Cut(k, "|")
			out[d] = true
		}
		return rows.Err()
	})
	return out, err
}

// noIssueUs is the issue time receiptBefore gives a row without one
// (math.MaxInt64): after every other, as streamrun.Order places it.
const noIssueUs = "9223372036854775807"

// orderParts is o as receiptBefore compares a row: its issue time in Unix
// microseconds (noIssueUs without one) and its line hash's first 32 hex
// characters ("g", after every hex digit, for a row without one).
func orderParts(o streamrun.Order) (int64, string) {
	issued, sum := o.Split()
	if sum == strings.Repeat("f", 32) {
		sum = "g"
	}
	return issued, sum
}

func (p *archivePrior) Nonces(ctx context.Context, digests []string) (map[string]bool, error) {
	out := map[string]bool{}
	err := p.withKeys(ctx, digests, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT DISTINCT k.key FROM prior_keys k JOIN receipts r ON r.nonce_key = k.key WHERE r.claim IS NOT TRUE`+p.others())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d string
			if err := rows.Scan(&d); err != nil {
				return err
			}
			out[d] = true
		}
		return rows.Err()
	})
	return out, err
}

// relink judges again, in the file's transaction, the stored receipts that
// named as absent a predecessor this file holds: a load that brings a
// receipt late gives its successors, loaded before, the judgment one load
// of both would have given (linked, or a break when the chains differ).
// When several receipts name it, the first in receiptOrder (issue time,
// then the line's SHA-256, as the stream orders them; counting those whose
// link was not checked, and those of this file) links and the others are
// forks, as in one load, whatever order they were loaded in; a claim (a
// receipt whose signature did not verify) is never the first, and forks
// the predecessor when a receipt that counts names it. A stored
// receipt whose chain started before what was loaded (its link not
// checked, no chain_absent) is judged again only when the predecessor
// now loaded, which no other file holds, is of another chain: a break.
// A receipt verified with this load's trust material is verified again
// and refolded; one verified with other material keeps its verdict, FAIL,
// and has its reasons corrected, unless chain_absent was its only reason:
// its verdict without it depends on material this load does not have, and
// it is left as it is.
func (f *fileLoad) relink() error {
	rows, err := f.tx.QueryContext(f.ctx, `
		SELECT r.file_sha256, r.line, r.raw, r.reasons, COALESCE(r.trust_sha256, ''),
		       p.chain_hash, COALESCE(p.chain_scope, ''), r.verdict, r.claim IS TRUE,
		       EXISTS (SELECT 1 FROM receipts o
		               WHERE lower(o.previous_hash) = p.chain_hash
		                 AND o.claim IS NOT TRUE
		                 AND COALESCE(o.chain_hash, '') <> COALESCE(r.chain_hash, '')
		                 AND `+receiptBefore+`)
		FROM receipts r
		JOIN receipts p ON p.file_sha256 = $1 AND lower(r.previous_hash) = p.chain_hash
		WHERE r.file_sha256 <> $1
		  AND (list_contains(r.reasons, 'chain_absent')
		       OR (r.chain_scope IS NOT NULL AND p.chain_scope IS NOT NULL AND r.chain_scope <> p.chain_scope
		           AND NOT list_contains(r.reasons, 'chain_break')
		           AND NOT EXISTS (SELECT 1 FROM receipts o WHERE o.chain_hash = p.chain_hash AND o.file_sha256 <> $1)))
		ORDER BY p.chain_hash, r.claim IS TRUE, `+receiptOrder, f.sum.SHA256)
	if err != nil {
		return err
	}
	type fix struct {
		sha     string
		line    int64
		verdict string
		reasons []string
	}
	var fixes []fix
	var lastHash string
	named := false // a receipt that counts names lastHash, in the rows read
	for rows.Next() {
		var sha, trust, hash, owner, verdict string
		var raw sql.NullString
		var line int64
		var reasons reasonList
		var claim, earlierNamer bool
		if err := rows.Scan(&sha, &line, &raw, &reasons, &trust, &hash, &owner, &verdict, &claim, &earlierNamer); err != nil {
			rows.Close()
			return err
		}
		if hash != lastHash {
			lastHash, named = hash, false
		}
		// The first namer that counts links; a claim is never first and
		// forks a predecessor a receipt that counts names (they come
		// first). A receipt that names it before in receiptOrder (even
		// one whose link was not checked, its chain starting before what
		// was loaded with it, or one of this file) makes this one a fork;
		// the first delivered again is the first too.
		first := !claim && !earlierNamer
		named = named || !claim
		absent := slices.Contains(reasons, verify.ReasonChainAbsent)
		if !raw.Valid {
			if !absent && verdict == string(verify.Pass) {
				// Its chain started before what was loaded, and the
				// predecessor now loaded is of another chain. Its line
				// stays in its archive file (verify show reads it there).
				fixes = append(fixes, fix{sha, line, string(verify.Fail), []string{string(verify.ReasonChainBreak)}})
			}
			continue // not FAIL (RawPolicy keeps the line of every one that is): nothing else to judge again
		}
		res, _ := f.v.VerifyWith([]byte(raw.String), verify.VerifyOptions{OmitSignatureHash: true})
		var judged verify.Reason // linked
		switch {
		case streamrun.ScopeDigest(res.ScopeKey()) != owner:
			judged = verify.ReasonChainBreak
		case !first && (!claim || named):
			judged = verify.ReasonChainFork
		}
		var kept []verify.Reason
		for _, r := range reasons {
			switch {
			case r == verify.ReasonChainAbsent && judged != "":
				kept = append(kept, judged)
			case r != verify.ReasonChainAbsent:
				kept = append(kept, r)
			}
		}
		if !absent {
			kept = append(kept, judged) // a break, as selected
		}
		switch {
		case trust == f.trust:
			streamrun.Rejudge(res, kept)
			fixes = append(fixes, fix{sha, line, string(res.Verdict), reasonStrings(res.Reasons)})
		case len(kept) > 0:
			fixes = append(fixes, fix{sha, line, string(verify.Fail), reasonStrings(kept)})
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, x := range fixes {
		if _, err := f.tx.ExecContext(f.ctx, "UPDATE receipts SET verdict = $1, reasons = $2 WHERE file_sha256 = $3 AND line = $4",
			x.verdict, x.reasons, x.sha, x.line); err != nil {
			return err
		}
		// A receipt now PASS keeps its line only as RawFlagged would
		// have kept it had it been PASS when loaded, so that loading
		// in any order stores the same.
		if x.verdict == string(verify.Pass) && !f.rawAll {
			if _, err := f.tx.ExecContext(f.ctx, dropUnflaggedRaw, x.sha, x.line); err != nil {
				return err
			}
		}
	}
	return nil
}

// NonceFirsts answers streamrun.PriorOrders: the Order of the earliest
// stored use of each nonce digest asked, from its issued_at and
// line_sha256 (a row without a line_sha256, stored before rows had one,
// orders by its issue time alone).
func (p *archivePrior) NonceFirsts(ctx context.Context, digests []string) (map[string]streamrun.Order, error) {
	out := map[string]streamrun.Order{}
	if len(digests) == 0 {
		return out, nil
	}
	err := p.withKeys(ctx, digests, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT k.key, epoch_us(r.issued_at), COALESCE(r.line_sha256, '')
			FROM prior_keys k JOIN receipts r ON r.nonce_key = k.key`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var d, sum string
			var issued sql.NullInt64
			if err := rows.Scan(&d, &issued, &sum); err != nil {
				return err
			}
			o := streamrun.MakeOrder(issued.Int64, issued.Valid, sum)
			if cur, ok := out[d]; !ok || o.Before(cur) {
				out[d] = o
			}
		}
		return rows.Err()
	})
	return out, err
}

// NamerFirsts answers streamrun.PriorOrders: the Order of the earliest
// stored receipt naming each chain hash prefix asked (its previous_hash,
// as Links reads it named; a claim names nothing), from its issued_at and
// line_sha256, as NonceFirsts.
func (p *archivePrior) NamerFirsts(ctx context.Context, prefixes []string) (map[string]streamrun.Order, error) {
	out := map[string]streamrun.Order{}
	if len(prefixes) == 0 {
		return out, nil
	}
	err := p.withKeys(ctx, prefixes, func(conn *sql.Conn) error {
		rows, err := conn.QueryContext(ctx, `
			SELECT k.key, epoch_us(r.issued_at), COALESCE(r.line_sha256, '')
			FROM prior_keys k JOIN receipts r ON substr(r.previous_hash, 1, 32) = k.key
			WHERE r.claim IS NOT TRUE`+p.others())
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var prefix, sum string
			var issued sql.NullInt64
			if err := rows.Scan(&prefix, &issued, &sum); err != nil {
				return err
			}
			o := streamrun.MakeOrder(issued.Int64, issued.Valid, sum)
			if cur, ok := out[prefix]; !ok || o.Before(cur) {
				out[prefix] = o
			}
		}
		return rows.Err()
	})
	return out, err
}
