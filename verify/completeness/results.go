package completeness

import (
	"time"

	"github.com/receiptverify/verify/verify"
)

// KindInterrupted is a terminal receipt whose issuer declares its chain
// interrupted (agent-receipts chain.status).
const KindInterrupted = verify.LifecycleInterrupted

// FromResults gathers verified receipts, of any format, into the chains
// they belong to (by chain scope, verify.Result.ScopeKey) and the
// checkpoints among them (C2SP notes, obsigna anchors), as Judge takes
// them: what verify.Verify or stream.Run returned for an archive. Only
// PASS results are evidence; a receipt that failed, or a checkpoint whose
// signature did not verify, says nothing of completeness. A chain a
// checkpoint names of which no receipt is held is returned empty, so that
// Judge can find it truncated.
func FromResults(results []*verify.Result) ([]Chain, []Checkpoint) {
	var chains []Chain
	var cps []Checkpoint
	index := map[string]int{}
	chainOf := func(scope, producer string) *Chain {
		n, ok := index[scope]
		if !ok {
			n = len(chains)
			index[scope] = n
			chains = append(chains, Chain{ID: scope})
		}
		if producer != "" && chains[n].Producer == "" {
			chains[n].Producer = producer
		}
		return &chains[n]
	}
	for _, r := range results {
		if r != nil && r.Verdict == verify.Pass && r.Format == verify.PipelockRecorderCheckpoint && r.Fields.Lifecycle != nil {
			// A recorder checkpoint: its head is the entry whose hash it
			// signs, in the chain of the key that signed it.
			at, _ := time.Parse(time.RFC3339Nano, r.Fields.IssuedAt)
			scope := verify.PipelockChainScope(r.Fields.IssuerID)
			cps = append(cps, Checkpoint{Chain: scope, Entry: r.Fields.Lifecycle.Head, Time: at, From: r.Format})
			chainOf(scope, "")
			continue
		}
		if r == nil || r.Verdict != verify.Pass || r.Fields.Step == nil || *r.Fields.Step < 0 {
			continue
		}
		seq := uint64(*r.Fields.Step)
		at, _ := time.Parse(time.RFC3339Nano, r.Fields.IssuedAt)
		lc := r.Fields.Lifecycle
		if lc != nil && lc.Kind == verify.LifecycleCheckpoint {
			cps = append(cps, Checkpoint{Chain: r.ScopeKey(), Seq: seq, Hash: lc.Head, Time: at, From: r.Format})
			chainOf(r.ScopeKey(), "")
			continue
		}
		rec := Receipt{Seq: seq, Hash: r.Fingerprints.ChainHash, Time: at, Entry: r.Fingerprints.RecorderEntry}
		if lc != nil {
			rec.Kind = lc.Kind
			rec.Interval = time.Duration(lc.HeartbeatSeconds) * time.Second
			if lc.Kind == verify.LifecycleClose {
				rec.FinalSeq, rec.Count = uint64(max(lc.FinalSeq, 0)), uint64(max(lc.ReceiptCount, 0))
			}
		}
		c := chainOf(r.ScopeKey(), r.Format)
		c.Receipts = append(c.Receipts, rec)
	}
	return chains, cps
}

// JudgeResults is the verdict of every chain among results (FromResults),
// judged at the instant at.
func JudgeResults(results []*verify.Result, at time.Time) []Verdict {
	chains, cps := FromResults(results)
	out := make([]Verdict, 0, len(chains))
	for _, c := range chains {
		out = append(out, Judge(c, cps, at))
	}
	return out
}
