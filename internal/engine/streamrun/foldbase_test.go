package streamrun

import (
	"database/sql"
	"fmt"
	"strings"
	"testing"

	_ "github.com/duckdb/duckdb-go/v2"

	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/reason"
)

// TestFoldBaseSQL: for results of every shape the fold meets (axes
// failed, skipped or advisory around the chain and nonce axes, a chain
// or nonce axis failed before its judgment, a receipt whose signature
// did not verify, an unreadable line), with every chain outcome and
// every nonce outcome, queries/shard/fold.sql over the FoldBase of each
// gives the verdict, reasons and chain and nonce axes Folder.Fold gives,
// with their notes (a receipt delivered again or not, too) and what the
// summary counts of each.
func TestFoldBaseSQL(t *testing.T) {
	t.Parallel()
	type ax struct {
		name   verify.AxisName
		status verify.Status
		reason reason.Reason
	}
	pass := func(n verify.AxisName) ax { return ax{n, verify.StatusPass, ""} }
	base := []ax{pass(verify.AxisStructure), pass(verify.AxisIssuerKey), pass(verify.AxisSignature), pass(verify.AxisPayloadDigest)}
	shapes := map[string][]ax{
		"clean":         base,
		"nonce pass":    append(base[:4:4], pass(verify.AxisNonce), pass(verify.AxisChain)),
		"chain failed":  append(base[:4:4], ax{verify.AxisChain, verify.StatusFail, reason.ChainMismatch}),
		"chain not run": append(base[:4:4], ax{verify.AxisChain, verify.StatusNotRun, ""}),
		"nonce failed":  append(base[:4:4], ax{verify.AxisNonce, verify.StatusFail, "nonce_missing"}),
		"nonce skipped": append(base[:4:4], ax{verify.AxisNonce, verify.StatusSkipped, "nonce_unchecked"}),
		"key revoked":   append(base[:4:4], ax{verify.AxisKeyStatus, verify.StatusFail, reason.KeyRevoked}),
		"digest failed": append(base[:3:3], ax{verify.AxisPayloadDigest, verify.StatusFail, "digest_mismatch"}),
		"skew failed":   append(base[:4:4], ax{verify.AxisSkew, verify.StatusFail, "clock_skew"}),
		"anchors skip":  append(base[:4:4], ax{verify.AxisAnchors, verify.StatusSkipped, "anchor_unchecked"}),
		"tool skipped":  append(base[:4:4], ax{verify.AxisToolFingerprint, verify.StatusSkipped, "tool_unknown"}),
		"expiry failed": append(base[:4:4], ax{verify.AxisExpiry, verify.StatusFail, "expired"}, ax{verify.AxisActionRef, verify.StatusFail, "ref"}),
		"mixed":         append(base[:2:2], ax{verify.AxisIssuerBind, verify.StatusSkipped, "bind_unchecked"}, ax{verify.AxisSignature, verify.StatusPass, ""}, ax{verify.AxisSkew, verify.StatusFail, "clock_skew"}, ax{verify.AxisAnchors, verify.StatusSkipped, "anchor_unchecked"}),
		"skips": append(base[:3:3], ax{verify.AxisIssuerBind, verify.StatusSkipped, "bind_unchecked"}, ax{verify.AxisPayloadDigest, verify.StatusSkipped, "digest_unchecked"},
			ax{verify.AxisNonce, verify.StatusSkipped, "nonce_unchecked"}, ax{verify.AxisAnchors, verify.StatusSkipped, "anchor_unchecked"}),
		"fails": append(base[:3:3], ax{verify.AxisIssuerBind, verify.StatusFail, "bind_failed"}, ax{verify.AxisPayloadDigest, verify.StatusFail, "digest_mismatch"},
			ax{verify.AxisAnchors, verify.StatusFail, "anchor_bad"}),
		"signature fail": append(base[:2:2], ax{verify.AxisSignature, verify.StatusFail, reason.BadSignature}),
		"unreadable":     nil,
		"unknown format": {ax{verify.AxisStructure, verify.StatusSkipped, verify.ReasonUnknownFormat}},
	}
	chains := []string{"", "linked", "absent", "outside", "break", "fork_prior", "fork"}
	nonces := []string{"", "unique", "replay", "prior_replay", "duplicate", "prior_duplicate"}
	deliveries := []string{"", "duplicate", "prior_duplicate"}

	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range []string{
		`CREATE TABLE fold_records (ord BIGINT, source VARCHAR, line BIGINT, claim BOOLEAN, base_verdict VARCHAR, base_reasons VARCHAR,
			fail_pre VARCHAR, fail_mid VARCHAR, fail_post VARCHAR, skip_pre VARCHAR, skip_mid VARCHAR, skip_post VARCHAR,
			chain_status VARCHAR, chain_reason VARCHAR, nonce_status VARCHAR, nonce_reason VARCHAR,
			chain_note VARCHAR, nonce_note VARCHAR, link_prev VARCHAR, chain_what VARCHAR, claim_note VARCHAR, unknown_format BOOLEAN)`,
		`CREATE TABLE judgments (ord BIGINT, kind VARCHAR, outcome VARCHAR, first_ord BIGINT)`,
		`CREATE TABLE fold_shards (shard BIGINT, records BIGINT, files BIGINT, files_unreadable BIGINT, lines BIGINT, blank BIGINT, unreadable BIGINT)`,
		`INSERT INTO fold_shards VALUES (0, 1000000, 0, 0, 0, 0, 0)`,
	} {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	// The records and their judgments go in one transaction: inserted
	// one by one, each a commit of its own, they cost the test most of
	// its time.
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	insJudgment, err := tx.Prepare("INSERT INTO judgments VALUES (?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	insRecord, err := tx.Prepare("INSERT INTO fold_records VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	ord := 0
	for name, axes := range shapes {
		res := &verify.Result{Source: name, Verdict: verify.Pass}
		if name == "unknown format" {
			res.Format = verify.UnknownFormat
		}
		if axes == nil {
			res.Verdict, res.Reasons = verify.Unreadable, []verify.Reason{reason.Malformed}
		}
		for _, a := range axes {
			note := ""
			if a.name == verify.AxisChain || a.name == verify.AxisNonce {
				note = string(a.name) + " as checked alone"
			}
			res.Judge(a.name, verify.Axis{Status: a.status, Reason: a.reason, Note: note})
		}
		state := appendResult(res, nil)
		fb := foldBaseOf(res, state)
		for _, c := range chains {
			for _, n := range nonces {
				for _, d := range deliveries {
					ord++
					var js []Judgment
					if c != "" {
						js = append(js, Judgment{Kind: "chain", Outcome: c, First: uint64(ord)})
					}
					if d != "" {
						js = append(js, Judgment{Kind: "delivery", Outcome: d, First: uint64(ord)})
					}
					if n != "" {
						js = append(js, Judgment{Kind: "nonce", Outcome: n, First: uint64(ord)})
					}
					for _, j := range js {
						if _, err := insJudgment.Exec(ord, j.Kind, j.Outcome, ord); err != nil {
							t.Fatal(err)
						}
					}
					if _, err := insRecord.Exec(ord, name, ord, !res.Evidence() && res.Verdict != verify.Unreadable,
						fb.Verdict, fb.Reasons, fb.Fail[0], fb.Fail[1], fb.Fail[2], fb.Skip[0], fb.Skip[1], fb.Skip[2],
						string(fb.Chain.Status), string(fb.Chain.Reason), string(fb.Nonce.Status), string(fb.Nonce.Reason),
						fb.Chain.Note, fb.Nonce.Note, fb.Prev, fb.What, fb.Claim, fb.UnknownFormat); err != nil {
						t.Fatal(err)
					}
					f := NewFolder()
					got, err := f.Fold(state, js)
					if err != nil {
						t.Fatal(err)
					}
					sum := f.Summary()
					ch, no := got.Axes.Of(verify.AxisChain), got.Axes.Of(verify.AxisNonce)
					want = append(want, fmt.Sprintf("%s %q %q %q: %s [%s] chain %s %s (%s), nonce %s %s (%s); counts %d %d %d", name, c, n, d, got.Verdict, reason.Join(got.Reasons),
						ch.Status, ch.Reason, ch.Note, no.Status, no.Reason, no.Note, sum.Duplicates, sum.ChainsOutside, sum.UnknownFormat))
				}
			}
		}
	}
	insJudgment.Close()
	insRecord.Close()
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(queries.Fold())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for ; rows.Next(); i++ {
		var o, line, dup, outside, unknown int64
		var source, verdict, reasons, cs, cr, ns, nr, cn, nn string
		if err := rows.Scan(&o, &source, &line, &verdict, &reasons, &cs, &cr, &ns, &nr, &cn, &nn, &dup, &outside, &unknown); err != nil {
			t.Fatal(err)
		}
		k := (line - 1) / int64(len(deliveries))
		c, n, d := chains[k/int64(len(nonces))%int64(len(chains))], nonces[k%int64(len(nonces))], deliveries[(line-1)%int64(len(deliveries))]
		got := fmt.Sprintf("%s %q %q %q: %s [%s] chain %s %s (%s), nonce %s %s (%s); counts %d %d %d", source, c, n, d, verdict, reasons, cs, cr, cn, ns, nr, nn, dup, outside, unknown)
		if i < len(want) && got != want[i] {
			t.Errorf("fold.sql:\n got %s\nwant %s", got, want[i])
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if i != len(want) {
		t.Errorf("fold.sql gives %d rows for %d records", i, len(want))
	}
	s := strings.Join(want, "\n")
	if !strings.Contains(s, "FAIL [chain_mismatch] chain FAIL chain_mismatch") || !strings.Contains(s, "INCOMPLETE [") {
		t.Errorf("no shape kept its failed chain axis, or none is INCOMPLETE:\n%s", s)
	}
	// Every kind of note occurs: a fork's and a replay's record, a
	// receipt delivered again on either axis, a claim's fork, a note
	// kept under a FAIL; and each count.
	for _, note := range []string{"(record ", "nonce already used by an earlier receipt of this issuer (record ", "delivered again)", "delivered again), nonce",
		"is named by a receipt whose signature verified", "(chain as checked alone)", "used by this same receipt, delivered before (record ", "; counts 0 1 0", "; counts 0 0 1"} {
		if !strings.Contains(s, note) {
			t.Errorf("no result has %q", note)
		}
	}
}
