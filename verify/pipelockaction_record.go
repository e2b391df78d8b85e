package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/receiptverify/verify/verify/canon"
)

// pipelock's verifier reads an ActionReceipt v1 with encoding/json into its
// Go structs and signs and hashes json.Marshal of them again
// (internal/receipt: action.go ActionRecord.Canonical, chain.go
// ReceiptHash), so the signed bytes are not the bytes on the wire: they
// are Go's encoding of the struct. These types copy the structs field for
// field, tag for tag, at luckyPipewrench/pipelock 4086512, and are
// marshalled by the same library: struct field order, omitempty, Go's
// escaping of & < > U+2028 U+2029, RFC 3339 timestamps with trailing zeros
// of the fraction dropped, sorted map keys, a nil delegation_chain as null.
// Members the structs lack are dropped by the decoder, as there.

type goActionReceipt struct {
	Version      int            `json:"version"`
	ActionRecord goActionRecord `json:"action_record"`
	Signature    string         `json:"signature"`
	SignerKey    string         `json:"signer_key"`
}

type goActionRecord struct {
	Version             int                `json:"version"`
	ActionID            string             `json:"action_id"`
	ActionType          string             `json:"action_type"`
	Timestamp           time.Time          `json:"timestamp"`
	Principal           string             `json:"principal"`
	Actor               string             `json:"actor"`
	DelegationChain     []string           `json:"delegation_chain"`
	Target              string             `json:"target"`
	Intent              string             `json:"intent,omitempty"`
	DataClassesIn       []string           `json:"data_classes_in,omitempty"`
	DataClassesOut      []string           `json:"data_classes_out,omitempty"`
	SideEffectClass     string             `json:"side_effect_class"`
	Reversibility       string             `json:"reversibility"`
	PolicyHash          string             `json:"policy_hash"`
	Verdict             string             `json:"verdict"`
	SessionTaintLevel   string             `json:"session_taint_level,omitempty"`
	SessionContaminated bool               `json:"session_contaminated,omitempty"`
	RecentTaintSources  []goTaintSourceRef `json:"recent_taint_sources,omitempty"`
	SessionTaskID       string             `json:"session_task_id,omitempty"`
	SessionTaskLabel    string             `json:"session_task_label,omitempty"`
	AuthorityKind       string             `json:"authority_kind,omitempty"`
	TaintDecision       string             `json:"taint_decision,omitempty"`
	TaintDecisionReason string             `json:"taint_decision_reason,omitempty"`
	TaskOverrideApplied bool               `json:"task_override_applied,omitempty"`
	Transport           string             `json:"transport"`
	Method              string             `json:"method,omitempty"`
	Layer               string             `json:"layer,omitempty"`
	Pattern             string             `json:"pattern,omitempty"`
	Severity            string             `json:"severity,omitempty"`
	Redaction           *goRedaction       `json:"redaction,omitempty"`
	RequestID           string             `json:"request_id,omitempty"`
	ChainPrevHash       string             `json:"chain_prev_hash"`
	ChainSeq            uint64             `json:"chain_seq"`
	Venue               string             `json:"venue,omitempty"`
	Jurisdiction        string             `json:"jurisdiction,omitempty"`
	RulebookID          string             `json:"rulebook_id,omitempty"`
	RemedyClass         string             `json:"remedy_class,omitempty"`
	ContestationWindow  string             `json:"contestation_window,omitempty"`
	PrecedentRefs       []string           `json:"precedent_refs,omitempty"`
}

// goRedaction is internal/receipt RedactionSummary.
type goRedaction struct {
	Profile           string         `json:"profile,omitempty"`
	TotalRedactions   int            `json:"total_redactions,omitempty"`
	ByClass           map[string]int `json:"by_class,omitempty"`
	CacheBoundaryKept bool           `json:"cache_boundary_kept,omitempty"`
}

// goTaintSourceRef is internal/session TaintSourceRef (TaintLevel is a
// uint8 with no JSON methods of its own).
type goTaintSourceRef struct {
	URL         string    `json:"url"`
	Kind        string    `json:"kind"`
	Level       uint8     `json:"level"`
	Timestamp   time.Time `json:"timestamp"`
	ReceiptID   string    `json:"receipt_id,omitempty"`
	MatchReason string    `json:"match_reason,omitempty"`
}

// pipelockActionTypes is internal/receipt allActionTypes.
var pipelockActionTypes = []string{"read", "derive", "write", "delegate", "authorize", "spend", "commit", "actuate", "unclassified"}

// readGoActionReceipt decodes doc as pipelock's receipt.Unmarshal does. doc
// is written back to JSON first (goDecoderInput), since the parse keeps
// what the decoder needs: a lone surrogate's escape, which Go reads as one
// U+FFFD, and the number literals as written, which Go refuses into an
// integer field when they are not integers.
func readGoActionReceipt(doc *canon.Value) (*goActionReceipt, error) {
	var r goActionReceipt
	if err := json.Unmarshal(goDecoderInput(nil, doc), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// readGoRecorderDetail decodes an entry's detail as the reference's
// receiptFromEntry does: the recorder reads the entry with Detail an `any`
// (a map, numbers as float64), receiptFromEntry marshals that map again
// (member names sorted) and unmarshals the result into the receipt.
func readGoRecorderDetail(detail *canon.Value) (*goActionReceipt, error) {
	var m any
	if err := json.Unmarshal(goDecoderInput(nil, detail), &m); err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	var r goActionReceipt
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// pipelockActionHash is chain.go ReceiptHash: hex SHA-256 of
// json.Marshal(receipt).
func pipelockActionHash(r *goActionReceipt) (string, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// pipelockSeqLink is the key this tool indexes an ActionReceipt's chain
// position by: SHA-256 of the receipt hash (as chain_prev_hash writes it,
// case and all) and the chain_seq it has, so that a link holds only when
// both agree with the predecessor, as VerifyChain requires (prev_hash
// equal, chain_seq one more).
func pipelockSeqLink(hash string, seq uint64) string {
	sum := sha256.Sum256([]byte(hash + "/" + strconv.FormatUint(seq, 10)))
	return hex.EncodeToString(sum[:])
}

// goDecoderInput writes v as JSON that decodes in encoding/json exactly as
// the text it was parsed from: numbers as written, strings escaped where
// needed, a lone surrogate (held in WTF-8 form) as its \u escape.
func goDecoderInput(buf []byte, v *canon.Value) []byte {
	return appendCompact(buf, v, appendGoDecoderString)
}

// appendCompact writes v compactly, members in the order given, each
// string (member names included) as quote writes it.
func appendCompact(buf []byte, v *canon.Value, quote func([]byte, string) []byte) []byte {
	switch v.Kind {
	case canon.Null:
		return append(buf, "null"...)
	case canon.False:
		return append(buf, "false"...)
	case canon.True:
		return append(buf, "true"...)
	case canon.Number:
		return append(buf, v.Text...)
	case canon.String:
		return quote(buf, v.Text)
	case canon.Array:
		buf = append(buf, '[')
		for i := range v.Items {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = appendCompact(buf, &v.Items[i], quote)
		}
		return append(buf, ']')
	default:
		buf = append(buf, '{')
		for i := range v.Members {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = quote(buf, v.Members[i].Name)
			buf = append(buf, ':')
			buf = appendCompact(buf, &v.Members[i].Value, quote)
		}
		return append(buf, '}')
	}
}

const goHexDigits = "0123456789abcdef"

func appendGoDecoderString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		b := s[i]
		switch {
		case b == '"' || b == '\\':
			buf = append(buf, '\\', b)
		case b < 0x20:
			buf = append(buf, '\\', 'u', '0', '0', goHexDigits[b>>4], goHexDigits[b&0xF])
		case b == 0xED && i+2 < len(s) && s[i+1] >= 0xA0:
			// WTF-8 surrogate: ED A0..BF 80..BF is U+D800..U+DFFF.
			r := 0xD000 | rune(s[i+1]&0x3F)<<6 | rune(s[i+2]&0x3F)
			buf = append(buf, '\\', 'u', goHexDigits[r>>12], goHexDigits[r>>8&0xF], goHexDigits[r>>4&0xF], goHexDigits[r&0xF])
			i += 2
		default:
			buf = append(buf, b)
		}
	}
	return append(buf, '"')
}
