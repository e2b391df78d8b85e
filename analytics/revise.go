package analytics

import (
	"database/sql"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
)

// RevisedDay is a day a load revised stored verdicts of (revisions): a
// receipt stored as the original of its nonce, or as the first to name
// its predecessor, that the load showed to be a replay, or a fork, of an
// earlier one it brought; or one stored as its chain's first that the
// load showed to be a gap after an earlier receipt of its chain. Its
// reports before the load are stale.
type RevisedDay struct {
	Day      string // YYYY-MM-DD
	Receipts int64  // receipts of the day revised
}

// reviseNonces finds the stored receipts that the load's files make
// replays: of the receipts sharing an (issuer, nonce) with one the load
// added, the original is the first by issued_at (a receipt without one
// last), then line_sha256 (receiptOrder), as the stream decides
// (streamrun.Order), and
// the loaded ones were judged against it. A receipt stored before that is
// not the original, nor the original delivered again (its chain hash),
// and not yet a replay is one now: FAIL nonce_replay. Then the loaded
// files in any order, in one load or many, store the same verdicts. Only
// a nonce a receipt stored before shares (mine) can revise one, so only
// those are ranked: a load of new nonces costs two scans of one column.
const reviseNonces = `WITH mine AS (
    SELECT nonce_key FROM receipts WHERE file_sha256 IN (%s) AND nonce_key IS NOT NULL
    INTERSECT
    SELECT nonce_key FROM receipts WHERE file_sha256 NOT IN (%[1]s) AND nonce_key IS NOT NULL
),
uses AS (
    SELECT r.file_sha256, r.source, r.line, r.day, r.verdict, r.reasons, r.chain_hash, r.nonce_key,
           r.raw IS NULL AS no_raw, COALESCE(r.byte_offset, -1) AS byte_offset, COALESCE(r.byte_length, -1) AS byte_length,
           COALESCE(r.line_sha256, '') AS line_sha256,
           ROW_NUMBER() OVER (PARTITION BY r.nonce_key ORDER BY ` + receiptOrder + `) AS rank
    FROM receipts r JOIN mine m ON m.nonce_key = r.nonce_key
)
SELECT u.file_sha256, u.source, u.line, u.day, u.verdict, u.reasons, o.file_sha256, o.source, o.line,
       u.no_raw, u.byte_offset, u.byte_length, u.line_sha256, o.file_sha256, o.source, o.line
FROM uses u JOIN uses o ON o.nonce_key = u.nonce_key AND o.rank = 1
WHERE u.rank > 1 AND u.file_sha256 NOT IN (%[1]s)
  AND NOT list_contains(u.reasons, 'nonce_replay')
  AND NOT COALESCE(u.chain_hash <> '' AND u.chain_hash = o.chain_hash, FALSE)
ORDER BY u.day, u.file_sha256, u.line`

// reviseForks finds the stored receipts that the load's files make forks:
// of the receipts that count (no claim) naming a predecessor that one the
// load added names, or that the load added (stored namers that were
// absent or whose chain started before what was loaded with them meet
// there), the first namer is the first in receiptOrder, as the stream
// decides. A receipt stored before that is not the first namer,
// nor the first namer delivered again (its chain hash), whose predecessor
// is stored in its own chain (else it is absent, outside or a break, as
// in one load) and whose link was judged no fault is a fork now: FAIL
// chain_fork. It runs after the files' relink, which judges the stored
// receipts that named their predecessor as absent. Only a predecessor a
// receipt stored before names (stored) can have such a namer, so only
// those are ranked, and only their copies the load brought.
const reviseForks = `WITH stored AS (
    SELECT DISTINCT lower(previous_hash) AS k FROM receipts
    WHERE file_sha256 NOT IN (%s) AND previous_hash IS NOT NULL AND claim IS NOT TRUE
),
mine AS (
    SELECT lower(r.previous_hash) AS k FROM receipts r JOIN stored s ON s.k = lower(r.previous_hash)
    WHERE r.file_sha256 IN (%[1]s) AND r.claim IS NOT TRUE
    UNION
    SELECT r.chain_hash AS k FROM receipts r JOIN stored s ON s.k = r.chain_hash
    WHERE r.file_sha256 IN (%[1]s) AND r.chain_hash <> ''
),
namers AS (
    SELECT r.file_sha256, r.source, r.line, r.day, r.verdict, r.reasons, r.chain_hash, r.chain_scope, m.k,
           r.raw IS NULL AS no_raw, COALESCE(r.byte_offset, -1) AS byte_offset, COALESCE(r.byte_length, -1) AS byte_length,
           COALESCE(r.line_sha256, '') AS line_sha256,
           ROW_NUMBER() OVER (PARTITION BY m.k ORDER BY ` + receiptOrder + `) AS rank
    FROM receipts r JOIN mine m ON lower(r.previous_hash) = m.k
    WHERE r.claim IS NOT TRUE
),
-- The predecessor as a file of the load holds it: what caused the
-- revision when the first namer was stored before.
brought AS (
    SELECT chain_hash AS k, file_sha256, source, line,
           ROW_NUMBER() OVER (PARTITION BY chain_hash ORDER BY file_sha256, line) AS n
    FROM receipts WHERE file_sha256 IN (%[1]s) AND chain_hash IN (SELECT k FROM mine)
)
SELECT u.file_sha256, u.source, u.line, u.day, u.verdict, u.reasons, o.file_sha256, o.source, o.line,
       u.no_raw, u.byte_offset, u.byte_length, u.line_sha256,
       CASE WHEN o.file_sha256 IN (%[1]s) OR b.k IS NULL THEN o.file_sha256 ELSE b.file_sha256 END,
       CASE WHEN o.file_sha256 IN (%[1]s) OR b.k IS NULL THEN o.source ELSE b.source END,
       CASE WHEN o.file_sha256 IN (%[1]s) OR b.k IS NULL THEN o.line ELSE b.line END
FROM namers u JOIN namers o ON o.k = u.k AND o.rank = 1
LEFT JOIN brought b ON b.k = u.k AND b.n = 1
WHERE u.rank > 1 AND u.file_sha256 NOT IN (%[1]s)
  AND NOT COALESCE(u.chain_hash <> '' AND u.chain_hash = o.chain_hash, FALSE)
  AND NOT list_has_any(u.reasons, ['chain_fork', 'chain_break', 'chain_absent', 'chain_mismatch'])
  AND EXISTS (SELECT 1 FROM receipts p WHERE p.chain_hash = u.k AND p.chain_scope = u.chain_scope)
ORDER BY u.day, u.file_sha256, u.line`

// reviseStarts finds the stored receipts that the load's files make gaps
// in their chain: a stored receipt that names a predecessor no receipt
// holds and whose link was judged no fault began its chain before what
// was loaded with it (not checked), as its chain's first receipt. When the
// load brings a receipt of its chain (chain_scope) that stands before it
// as the stream orders a chain's receipts (a genesis, naming no
// predecessor, before every other; then receiptOrder), other than it
// delivered again (its chain hash), it is not the first and its link is
// a gap: FAIL chain_absent, as one load of both judges it, in any order.
// The first is that earliest receipt of the load. It runs after the
// files' relink, which links those whose predecessor the load brought.
// Only the chain scopes of the load's receipts are searched.
const reviseStarts = `WITH loaded AS (
    SELECT file_sha256, source, line, chain_scope, chain_hash, COALESCE(previous_hash, '') = '' AS genesis,
           COALESCE(epoch_us(issued_at), ` + noIssueUs + `) AS issued, COALESCE(line_sha256, 'g') AS line_sha256
    FROM receipts
    WHERE file_sha256 IN (%s) AND chain_scope IS NOT NULL AND chain_hash IS NOT NULL AND claim IS NOT TRUE
),
starts AS (
    SELECT r.file_sha256, r.source, r.line, r.day, r.verdict, r.reasons, r.chain_hash, r.chain_scope,
           r.raw IS NULL AS no_raw, COALESCE(r.byte_offset, -1) AS byte_offset, COALESCE(r.byte_length, -1) AS byte_length,
           COALESCE(r.line_sha256, '') AS line_sha256,
           COALESCE(epoch_us(r.issued_at), ` + noIssueUs + `) AS issued, COALESCE(r.line_sha256, 'g') AS ordered_sha
    FROM receipts r
    WHERE r.file_sha256 NOT IN (%[1]s) AND r.claim IS NOT TRUE
      AND r.chain_scope IN (SELECT chain_scope FROM loaded)
      AND COALESCE(r.previous_hash, '') <> ''
      AND NOT list_has_any(r.reasons, ['chain_fork', 'chain_break', 'chain_absent', 'chain_mismatch'])
      AND NOT EXISTS (SELECT 1 FROM receipts p WHERE p.chain_hash = lower(r.previous_hash))
),
firsts AS (
    SELECT u.*, o.file_sha256 AS o_sha, o.source AS o_source, o.line AS o_line,
           ROW_NUMBER() OVER (PARTITION BY u.file_sha256, u.line
                              ORDER BY o.genesis DESC, o.issued, o.line_sha256, o.file_sha256, o.line) AS n
    FROM starts u JOIN loaded o ON o.chain_scope = u.chain_scope
     AND o.chain_hash <> COALESCE(u.chain_hash, '')
     AND (o.genesis OR (o.issued, o.line_sha256) < (u.issued, u.ordered_sha))
)
SELECT file_sha256, source, line, day, verdict, reasons, o_sha, o_source, o_line,
       no_raw, byte_offset, byte_length, line_sha256, o_sha, o_source, o_line
FROM firsts WHERE n = 1
ORDER BY day, file_sha256, line`

// receiptOrder is streamrun.Order over the receipts row r, for ORDER BY:
// its issue time (a receipt without one last), then the SHA-256 of its
// line; the file and line only tell copies of one line apart. Every
// decision of which receipt is the first (an original, a first namer)
// orders by it, as the stream does.
const receiptOrder = `r.issued_at NULLS LAST, r.line_sha256 NULLS LAST, r.file_sha256, r.line`

// receiptBefore is the condition that the receipts row o stands before
// r in receiptOrder.
const receiptBefore = `(COALESCE(epoch_us(o.issued_at), ` + noIssueUs + `), COALESCE(o.line_sha256, 'g'), o.file_sha256, o.line)
	< (COALESCE(epoch_us(r.issued_at), ` + noIssueUs + `), COALESCE(r.line_sha256, 'g'), r.file_sha256, r.line)`

// revise revises, in one transaction after the files are stored, the
// stored verdicts the load's files change (reviseNonces, reviseForks,
// then reviseStarts), records each in revisions and returns the days
// revised.
func (l *loader) revise() error {
	var added []string
	for _, f := range l.sum.Files {
		if f.Err == nil && !f.AlreadyLoaded && f.Accepted > 0 && len(f.Holds) > 0 {
			added = append(added, f.Holds[0])
		}
	}
	if len(added) == 0 {
		return nil
	}
	fail := func(err error) error { return dbErr(l.ctx, "revise stored verdicts", l.db.path, err) }
	tx, err := l.conn.BeginTx(l.ctx, nil)
	if err != nil {
		return fail(err)
	}
	defer tx.Rollback()
	in := sqltext.Strings(added)
	perDay := map[string]map[string]bool{} // day: the receipts revised, by file and line
	nonces := revisionKind{query: reviseNonces, reasons: func(_ string, rs reasonList) []verify.Reason { return withNonceReplay(rs) },
		why: "nonce_replay: its nonce was used first by "}
	forks := revisionKind{query: reviseForks, reasons: withChainFork,
		why:        "chain_fork: its predecessor was named first by ",
		whyBrought: "chain_fork: its predecessor, loaded now as %s, was named first by %s"}
	starts := revisionKind{query: reviseStarts, reasons: withChainAbsent,
		why: "chain_absent: its predecessor is missing and its chain has an earlier receipt, "}
	for _, k := range []revisionKind{nonces, forks, starts} {
		if err := l.reviseKind(tx, k, in, perDay); err != nil {
			return fail(err)
		}
	}
	if len(perDay) == 0 {
		return nil
	}
	if err := tx.Commit(); err != nil {
		return fail(err)
	}
	for d, revised := range perDay {
		l.sum.Revised = append(l.sum.Revised, RevisedDay{Day: d, Receipts: int64(len(revised))})
	}
	slices.SortFunc(l.sum.Revised, func(a, b RevisedDay) int { return strings.Compare(a.Day, b.Day) })
	return nil
}

// revisionKind is one judgment a load revises stored receipts by: the
// query finding them (its %s the load's files), their reasons after, and
// the start of the why recorded, which the first receipt's place ends;
// whyBrought, the why when the cause is not the first but a receipt it
// names that the load brought (the predecessor's place, then the first's).
type revisionKind struct {
	query      string
	reasons    func(verdict string, old reasonList) []verify.Reason
	why        string
	whyBrought string
}

// reviseKind revises the stored receipts k.query finds in tx to FAIL,
// records each in revisions and counts them in perDay.
func (l *loader) reviseKind(tx *sql.Tx, k revisionKind, in string, perDay map[string]map[string]bool) error {
	rows, err := tx.QueryContext(l.ctx, fmt.Sprintf(k.query, in))
	if err != nil {
		return err
	}
	type revision struct {
		sha, source         string
		line                int64
		day                 time.Time
		verdict             string
		reasons             reasonList
		origSHA, origSource string // the first: the original, the first namer
		origLine            int64
		// cause is the receipt of the load that caused the revision:
		// the first, or the predecessor a first namer stored before names.
		causeSHA, causeSource string
		causeLine             int64
		noRaw                 bool
		at                    StoredReceipt // where its line is in the archive
	}
	var revs []revision
	for rows.Next() {
		var r revision
		if err := rows.Scan(&r.sha, &r.source, &r.line, &r.day, &r.verdict, &r.reasons, &r.origSHA, &r.origSource, &r.origLine,
			&r.noRaw, &r.at.Offset, &r.at.Length, &r.at.LineSHA256, &r.causeSHA, &r.causeSource, &r.causeLine); err != nil {
			rows.Close()
			return err
		}
		revs = append(revs, r)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	for _, r := range revs {
		newReasons := reasonStrings(k.reasons(r.verdict, r.reasons))
		first := r.origSource + ":" + strconv.FormatInt(r.origLine, 10)
		why := k.why + first
		if r.causeSHA != r.origSHA || r.causeLine != r.origLine {
			why = fmt.Sprintf(k.whyBrought, r.causeSource+":"+strconv.FormatInt(r.causeLine, 10), first)
		}
		if _, err := tx.ExecContext(l.ctx, "UPDATE receipts SET verdict = 'FAIL', reasons = $1 WHERE file_sha256 = $2 AND line = $3",
			newReasons, r.sha, r.line); err != nil {
			return err
		}
		if r.noRaw {
			// RawFlagged keeps the line of a FAIL receipt, as one load
			// of all would have: read from its archive file when it is
			// still there and the same, else left there.
			r.at.Source, r.at.Line = r.source, r.line
			if b, err := r.at.ReadArchive(l.ctx, ""); err == nil {
				if _, err := tx.ExecContext(l.ctx, "UPDATE receipts SET raw = $1 WHERE file_sha256 = $2 AND line = $3", string(b), r.sha, r.line); err != nil {
					return err
				}
			}
		}
		if _, err := tx.ExecContext(l.ctx, `INSERT INTO revisions VALUES ($1, $2, $3, $4, $5, $6, 'FAIL', $7, $8, $9, $10, $11, $12)`,
			r.day, r.sha, r.source, r.line, r.verdict, reasonStrings(r.reasons), newReasons,
			why, r.causeSHA, r.causeLine, l.at, l.opts.Run); err != nil {
			return err
		}
		day := r.day.UTC().Format(time.DateOnly)
		if perDay[day] == nil {
			perDay[day] = map[string]bool{}
		}
		perDay[day][r.sha+":"+strconv.FormatInt(r.line, 10)] = true
	}
	return nil
}

// withChainFork is the reasons of a stored receipt made a fork: chain_fork
// before the reasons a FAIL receipt had, which are all of axes after the
// chain (a receipt that counts fails none before it, and one whose link
// was judged no fault has no chain reason), as one run would list them;
// chain_fork alone for a receipt that was PASS or INCOMPLETE (a FAIL
// lists no skipped axis).
func withChainFork(verdict string, rs reasonList) []verify.Reason {
	return withChainReason(verify.ReasonChainFork, verdict, rs)
}

// withChainAbsent is the reasons of a stored receipt made a gap in its
// chain (reviseStarts), as withChainFork's with chain_absent.
func withChainAbsent(verdict string, rs reasonList) []verify.Reason {
	return withChainReason(verify.ReasonChainAbsent, verdict, rs)
}

func withChainReason(reason verify.Reason, verdict string, rs reasonList) []verify.Reason {
	if verdict != string(verify.Fail) {
		return []verify.Reason{reason}
	}
	return append([]verify.Reason{reason}, rs...)
}

// withNonceReplay adds nonce_replay to a stored receipt's reasons where the
// nonce axis stands in verify.AxisOrder: before the reasons of the axes
// after it that fail on their own (clock_skew, bad_anchor), as one run
// would have listed them.
func withNonceReplay(rs reasonList) []verify.Reason {
	i := len(rs)
	for i > 0 && (rs[i-1] == verify.ReasonClockSkew || rs[i-1] == verify.ReasonBadAnchor) {
		i--
	}
	return slices.Insert(slices.Clone([]verify.Reason(rs)), i, verify.ReasonNonceReplay)
}
