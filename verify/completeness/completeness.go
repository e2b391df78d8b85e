// Package completeness judges whether an archive holds the whole of each
// receipt chain: the question a valid signature and an intact link cannot
// answer, since a chain whose tail was deleted, or that was rewritten by
// the key's holder, verifies receipt by receipt.
//
// # Verdicts
//
// Each chain gets one [Status], from the signed evidence its producer
// writes and from checkpoints given out of band:
//
//   - complete: a signed close, or a checkpoint, covers the chain's last
//     receipt held, and every receipt up to it is present;
//   - open: no close yet, and the last receipt is within the producer's
//     declared heartbeat interval of the judging instant;
//   - interrupted: the chain opened with lifecycle evidence and stops
//     without a close, longer ago than its interval;
//   - truncated: signed evidence names a head, a sequence number or a count
//     beyond what the archive holds, or a head hash the archive's receipt
//     at that position does not have (a rewritten chain). A finding;
//   - unknown: no evidence either way.
//
// The receipts given must be verified already: completeness takes their
// claims as signed.
package completeness

import (
	"slices"
	"strconv"
	"time"
)

// Status is the completeness verdict of one chain.
type Status string

// The verdicts, in the order a summary lists them.
const (
	Complete    Status = "complete"
	Open        Status = "open"
	Interrupted Status = "interrupted"
	Truncated   Status = "truncated"
	Unknown     Status = "unknown"
)

// Statuses lists every Status, in summary order.
func Statuses() []Status { return []Status{Complete, Open, Interrupted, Truncated, Unknown} }

// Lifecycle kinds a receipt may carry.
const (
	KindOpen      = "session_open"
	KindHeartbeat = "heartbeat"
	KindClose     = "session_close"
)

// Receipt is what completeness needs of one verified receipt.
type Receipt struct {
	Seq  uint64    // position in its chain (pipelock chain_seq, obsigna sequence)
	Hash string    // the hash a successor or a checkpoint names it by
	Time time.Time // when it was issued
	// Kind is the lifecycle record it is, "" for an ordinary action.
	Kind string
	// Interval is the heartbeat interval a session_open declares (0: none).
	Interval time.Duration
	// FinalSeq and Count are a session_close's signed claims: the last
	// sequence number of the run and the receipts of its key segment.
	FinalSeq, Count uint64
	// SegmentStart is the sequence number the receipt's key segment
	// starts at (a key transition restarts the count).
	SegmentStart uint64
	// Entry is the hash of the pipelock flight recorder entry the receipt
	// was read from ("" for none): what a recorder checkpoint names.
	Entry string
}

// Chain is one chain's receipts as the archive holds them, in any order.
type Chain struct {
	ID       string // the chain's identity: pipelock's signer key, obsigna's chain_id
	Producer string // the format that wrote it
	Receipts []Receipt
}

// Checkpoint is a signed statement of a chain's head: {chain_id, sequence,
// receipt_hash, timestamp} in obsigna's anchors, a recorder checkpoint in
// pipelock's. Only checkpoints whose signature verified may be given.
type Checkpoint struct {
	Chain string
	Seq   uint64
	Hash  string // "" when the checkpoint names no hash
	Time  time.Time
	From  string // where it came from, for the verdict's detail
	// Entry, when set, names the head by the hash of the pipelock flight
	// recorder entry that holds it, which is all a recorder checkpoint
	// signs: Seq and Hash are then those of the receipt held in that
	// entry, and a head no receipt held is in is truncation.
	Entry string
}

// Verdict is the judgment of one chain.
type Verdict struct {
	Chain    string `json:"chain"`
	Producer string `json:"producer,omitempty"`
	Status   Status `json:"status"`
	Held     int    `json:"held"`               // receipts the archive holds
	HeadSeq  uint64 `json:"head_seq"`           // the highest sequence number held
	Claimed  uint64 `json:"claimed_seq"`        // the highest the evidence names
	Evidence string `json:"evidence,omitempty"` // what the verdict rests on
	Detail   string `json:"detail,omitempty"`
}

// Judge returns the verdict of c, given the checkpoints that name it and
// the judging instant.
func Judge(c Chain, checkpoints []Checkpoint, at time.Time) Verdict {
	v := Verdict{Chain: c.ID, Producer: c.Producer, Status: Unknown}
	if len(c.Receipts) == 0 {
		for _, cp := range checkpoints {
			switch {
			case cp.Chain == c.ID && cp.Entry != "":
				v = v.with(Truncated, cp.From, "a recorder checkpoint names entry "+short(cp.Entry)+" as its head; the archive holds none of the chain")
			case cp.Chain == c.ID:
				v.Claimed = max(v.Claimed, cp.Seq)
				v = v.with(Truncated, cp.From, "a checkpoint names sequence "+u(v.Claimed)+"; the archive holds none of the chain")
			}
		}
		return v
	}
	rs := slices.Clone(c.Receipts)
	slices.SortStableFunc(rs, func(a, b Receipt) int {
		switch {
		case a.Seq < b.Seq:
			return -1
		case a.Seq > b.Seq:
			return 1
		}
		return 0
	})
	bySeq := make(map[uint64]Receipt, len(rs))
	for _, r := range rs {
		bySeq[r.Seq] = r
	}
	last := rs[len(rs)-1]
	v.Held, v.HeadSeq, v.Claimed = len(bySeq), last.Seq, last.Seq
	// present reports whether every receipt from the chain's first up to
	// seq is held.
	first := rs[0].Seq
	present := func(seq uint64) bool {
		for s := first; s <= seq; s++ {
			if _, ok := bySeq[s]; !ok {
				return false
			}
		}
		return true
	}

	// A recorder checkpoint names its head by entry hash alone.
	byEntry := map[string]Receipt{}
	for _, r := range rs {
		if r.Entry != "" {
			byEntry[r.Entry] = r
		}
	}
	checkpoints = slices.Clone(checkpoints)
	for i, cp := range checkpoints {
		if cp.Chain != c.ID || cp.Entry == "" {
			continue
		}
		r, ok := byEntry[cp.Entry]
		if !ok {
			return v.with(Truncated, cp.From, "a recorder checkpoint names entry "+short(cp.Entry)+" as its head; the archive holds no receipt of it: deleted or rewritten")
		}
		checkpoints[i].Seq, checkpoints[i].Hash = r.Seq, r.Hash
	}

	// Evidence that names more than is held is a finding, whatever else.
	for _, cp := range checkpoints {
		if cp.Chain != c.ID {
			continue
		}
		v.Claimed = max(v.Claimed, cp.Seq)
		r, ok := bySeq[cp.Seq]
		switch {
		case cp.Seq > last.Seq:
			return v.with(Truncated, cp.From, "a checkpoint names sequence "+u(cp.Seq)+"; the archive holds up to "+u(last.Seq))
		case !ok || !present(cp.Seq):
			return v.with(Truncated, cp.From, "a checkpoint names sequence "+u(cp.Seq)+", but receipts up to it are missing")
		case cp.Hash != "" && r.Hash != cp.Hash:
			return v.with(Truncated, cp.From, "the checkpoint's head hash at sequence "+u(cp.Seq)+" is not the archive's receipt there: the chain was rewritten")
		}
	}
	if last.Kind == KindClose {
		held := uint64(0)
		for s := range bySeq {
			if s >= last.SegmentStart && s <= last.Seq {
				held++
			}
		}
		switch {
		case last.FinalSeq > last.Seq:
			v.Claimed = max(v.Claimed, last.FinalSeq)
			return v.with(Truncated, "session_close", "the signed close names final sequence "+u(last.FinalSeq)+"; the archive holds up to "+u(last.Seq))
		case last.Count > held:
			return v.with(Truncated, "session_close", "the signed close counts "+u(last.Count)+" receipts; the archive holds "+u(held))
		case present(last.Seq):
			return v.with(Complete, "session_close", "a signed close covers sequence "+u(last.Seq))
		}
	}
	for _, cp := range checkpoints {
		if cp.Chain == c.ID && cp.Seq == last.Seq && present(last.Seq) {
			return v.with(Complete, cp.From, "a checkpoint covers sequence "+u(last.Seq))
		}
	}
	var interval time.Duration
	lifecycle := false
	for _, r := range rs {
		if r.Kind != "" {
			lifecycle = true
		}
		if r.Kind == KindOpen {
			interval = r.Interval
		}
	}
	if !lifecycle {
		return v.with(Unknown, "", "no lifecycle record and no checkpoint")
	}
	if interval > 0 && !last.Time.IsZero() && !at.Before(last.Time) && at.Sub(last.Time) <= interval {
		return v.with(Open, "heartbeat", "no close yet; the last receipt is within the "+interval.String()+" heartbeat interval")
	}
	return v.with(Interrupted, "session_open", "the chain stops at sequence "+u(last.Seq)+" without a signed close")
}

func (v Verdict) with(s Status, evidence, detail string) Verdict {
	v.Status, v.Evidence, v.Detail = s, evidence, detail
	return v
}

func u(n uint64) string { return strconv.FormatUint(n, 10) }

func short(h string) string {
	if len(h) > 12 {
		return h[:12] + "…"
	}
	return h
}
