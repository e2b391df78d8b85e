package completeness

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// Pipelock groups pipelock ActionReceipt v1 lines (bare receipts or
// flight recorder entries) into chains by signer key and reads the
// evidence of its session lifecycle records: a session_open's heartbeat
// interval, a session_close's final_seq and receipt_count. A receipt's
// hash is SHA-256 of its bytes as written, as pipelock links them. Lines
// that are not pipelock receipts are skipped; one that cannot be read is
// an error naming its line.
func Pipelock(lines [][]byte) ([]Chain, error) {
	var chains []Chain
	index := map[string]int{}
	segStart := map[string]uint64{}
	for i, line := range lines {
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		raw, ok, err := pipelockReceiptBytes(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if !ok {
			continue
		}
		var r pipelockReceipt
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("line %d: action_record: %w", i+1, err)
		}
		ar := r.ActionRecord
		sum := sha256.Sum256(raw)
		rec := Receipt{Seq: ar.ChainSeq, Hash: hex.EncodeToString(sum[:])}
		rec.Time, _ = time.Parse(time.RFC3339Nano, ar.Timestamp)
		if ar.KeyTransition != nil {
			segStart[r.SignerKey] = ar.ChainSeq
		}
		rec.SegmentStart = segStart[r.SignerKey]
		if sc := ar.SessionControl; sc != nil {
			rec.Kind = sc.Kind
			if sc.Open != nil {
				rec.Interval = time.Duration(sc.Open.HeartbeatSeconds) * time.Second
			}
			if sc.Close != nil {
				rec.FinalSeq, rec.Count = sc.Close.FinalSeq, sc.Close.ReceiptCount
			}
		}
		n, ok := index[r.SignerKey]
		if !ok {
			n = len(chains)
			index[r.SignerKey] = n
			chains = append(chains, Chain{ID: r.SignerKey, Producer: "pipelock-action-v1"})
		}
		chains[n].Receipts = append(chains[n].Receipts, rec)
	}
	return chains, nil
}

type pipelockReceipt struct {
	SignerKey    string `json:"signer_key"`
	ActionRecord struct {
		Timestamp      string    `json:"timestamp"`
		ChainSeq       uint64    `json:"chain_seq"`
		KeyTransition  *struct{} `json:"key_transition"`
		SessionControl *struct {
			Kind string `json:"kind"`
			Open *struct {
				HeartbeatSeconds int64 `json:"heartbeat_seconds"`
			} `json:"open"`
			Close *struct {
				FinalSeq     uint64 `json:"final_seq"`
				ReceiptCount uint64 `json:"receipt_count"`
			} `json:"close"`
		} `json:"session_control"`
	} `json:"action_record"`
}

// pipelockReceiptBytes returns the receipt's bytes as written: the line,
// or a recorder entry's detail.
func pipelockReceiptBytes(line []byte) ([]byte, bool, error) {
	var top struct {
		Type         string          `json:"type"`
		Detail       json.RawMessage `json:"detail"`
		ActionRecord json.RawMessage `json:"action_record"`
	}
	if err := json.Unmarshal(line, &top); err != nil {
		return nil, false, err
	}
	switch {
	case len(top.ActionRecord) > 0:
		return line, true, nil
	case top.Type == "action_receipt" && len(top.Detail) > 0:
		return top.Detail, true, nil
	}
	return nil, false, nil
}
