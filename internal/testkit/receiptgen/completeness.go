package receiptgen

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/sumdb/note"

	"github.com/receiptverify/verify/verify/canon"
)

// Completeness plants: chains whose loss no receipt shows, since every
// receipt the archive still holds verifies. Each set is six sessions of
// plantLen Asqav receipts, drawn from a random stream of their own:
//
//	tail_deleted     the last plantCut receipts left out of the file
//	session_removed  every receipt left out
//	chain_rewritten  one receipt's decision changed and every receipt from
//	                 it on signed again with the hashes recomputed, as the
//	                 key's holder can
//
// each once with a checkpoint that covers it (a C2SP signed note in
// checkpoints.jsonl naming the chain's head as first signed, by the
// witness key of keys/witness.json) and once without. Only the covered
// ones are contradicted by signed evidence: truth.jsonl lists them as kind
// truncated, the others as no_evidence. A checkpoint also covers the head
// of one clean session per set, which is complete.
const (
	plantLen = 6 // receipts of a planted session
	plantCut = 2 // receipts a tail deletion leaves out
	// plantRewrite is the step whose decision a rewrite changes.
	plantRewrite = 2
	// plantLines is how many lines one set writes: two tails of
	// plantLen-plantCut and two rewritten chains of plantLen.
	plantLines = 2*(plantLen-plantCut) + 2*plantLen
	// witnessName is the checkpoints' key name and its id in
	// keys/witness.json.
	witnessName = "receiptgen-witness"
)

// File names of the completeness plants' evidence.
const (
	FileWitness     = "keys/witness.json"
	FileCheckpoints = "checkpoints.jsonl"
)

// plantKind is what a completeness plant did to its session.
type plantKind uint8

const (
	plantTail plantKind = iota
	plantRemoved
	plantRewritten
)

var plantName = map[plantKind]string{plantTail: "tail_deleted", plantRemoved: "session_removed", plantRewritten: "chain_rewritten"}

type plant struct {
	sess    *session
	kind    plantKind
	covered bool
}

// planCompleteness adds the plants' sessions to g.all and picks the clean
// sessions a checkpoint covers, from g.cr alone.
func (g *gen) planCompleteness() {
	r := g.cr
	active := g.agentList[:g.cfg.Agents]
	for range g.cfg.Completeness {
		for _, k := range []plantKind{plantTail, plantRemoved, plantRewritten} {
			for _, covered := range []bool{true, false} {
				s := &session{idx: len(g.sessions), id: "sess_" + hexN(r, 16), agent: active[r.IntN(len(active))]}
				g.sessions = append(g.sessions, s)
				p := &plant{sess: s, kind: k, covered: covered}
				for j, t := range g.timesFrom(r, plantLen) {
					sl := &slot{sess: s, step: j, t: t, plant: p}
					if j > 0 {
						sl.prev = s.slots[j-1]
					}
					if k == plantRemoved || (k == plantTail && j >= plantLen-plantCut) {
						sl.role = roleCut
					}
					s.slots = append(s.slots, sl)
					g.all = append(g.all, sl)
				}
				g.plants = append(g.plants, p)
			}
		}
		// One clean session of the corpus, whole and checkpointed.
		var clean []*session
		for _, s := range g.sessions {
			if s.agent.revoked || len(s.slots) == 0 || s.slots[0].plant != nil || s.slots[0].form != formAsqav || slicesContain(g.covered, s) {
				continue
			}
			ok := true
			for _, sl := range s.slots {
				ok = ok && sl.role == roleNone && sl.group == 0
			}
			if ok {
				clean = append(clean, s)
			}
		}
		if len(clean) > 0 {
			g.covered = append(g.covered, clean[r.IntN(len(clean))])
		}
	}
}

func slicesContain(ss []*session, s *session) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// rewrite makes s, built as first signed, into what a rewrite of its chain
// writes: from plantRewrite on, the decision changed there and each
// receipt linked to its rewritten predecessor, hashed again.
func (g *gen) rewrite(s *slot) {
	if s.plant == nil || s.plant.kind != plantRewritten || s.step < plantRewrite {
		return
	}
	if s.step == plantRewrite {
		s.decision = map[string]string{"allow": "deny", "deny": "allow"}[s.decision]
		s.payload.Get("decision").Text = s.decision
	}
	s.payload.Get("previousReceiptHash").Text = s.prev.hash
	d := canon.AsqavAt(time.UnixMicro(s.t).UTC())
	var err error
	if s.msg, err = d.Append(nil, &s.payload); err != nil {
		panic(err)
	}
	sum := sha256.Sum256(s.msg)
	s.hash = hex.EncodeToString(sum[:])
}

// witness is the checkpoints' signer: an Ed25519 key drawn from g.cr.
type witness struct {
	priv ed25519.PrivateKey
	hash uint32
}

func newWitness(r *rand.Rand) *witness {
	seed := seed32(r)
	priv := ed25519.NewKeyFromSeed(seed[:])
	pub := priv.Public().(ed25519.PublicKey)
	h := sha256.Sum256(append([]byte(witnessName+"\n\x01"), pub...))
	return &witness{priv: priv, hash: binary.BigEndian.Uint32(h[:4])}
}

func (w *witness) Name() string                    { return witnessName }
func (w *witness) KeyHash() uint32                 { return w.hash }
func (w *witness) Sign(msg []byte) ([]byte, error) { return ed25519.Sign(w.priv, msg), nil }

// keyFile is keys/witness.json: the witness's id and public key in hex.
func (w *witness) keyFile() []byte {
	pub := w.priv.Public().(ed25519.PublicKey)
	return []byte(`{"` + witnessName + `":"` + hex.EncodeToString(pub) + "\"}\n")
}

// origin names an Asqav chain in a checkpoint: the format, then the
// payload's issuer_id, org_id, agent_id and session_id.
func origin(s *session) string {
	a := s.agent
	return "asqav-native/" + strings.Join([]string{a.org, a.org, a.id, s.id}, "/")
}

// checkpoint is the line of checkpoints.jsonl naming the head of s as
// first signed.
func (w *witness) checkpoint(s *session) ([]byte, error) {
	head := s.slots[len(s.slots)-1]
	sum, err := hex.DecodeString(head.orig)
	if err != nil {
		return nil, err
	}
	text := origin(s) + "\n" + strconv.Itoa(len(s.slots)) + "\n" + base64.StdEncoding.EncodeToString(sum) + "\n"
	signed, err := note.Sign(&note.Note{Text: text}, w)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err = enc.Encode(map[string]string{"checkpoint": string(signed)})
	return b.Bytes(), err
}

// checkpoints writes checkpoints.jsonl: the covered plants' heads, then
// the clean sessions'.
func (g *gen) checkpoints(w *witness) ([]byte, error) {
	var out []byte
	for _, p := range g.plants {
		if !p.covered {
			continue
		}
		b, err := w.checkpoint(p.sess)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	for _, s := range g.covered {
		b, err := w.checkpoint(s)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// plantRecords are the truth of the completeness plants, in plan order.
func (g *gen) plantRecords() []Record {
	var out []Record
	for _, p := range g.plants {
		s := p.sess
		head := s.slots[len(s.slots)-1]
		r := Record{Kind: KindNoEvidence, Day: day(head.t), Plant: plantName[p.kind],
			AgentID: s.agent.id, SessionID: s.id, ChainScope: asqavScopeDigest(s)}
		switch p.kind {
		case plantTail:
			r.Note = fmt.Sprintf("the last %d of %d receipts left out", plantCut, plantLen)
		case plantRemoved:
			r.Note = fmt.Sprintf("all %d receipts left out", plantLen)
		case plantRewritten:
			r.Note = fmt.Sprintf("decision of step %d changed, steps %d to %d signed again with the hashes recomputed", plantRewrite, plantRewrite, plantLen-1)
		}
		if p.covered {
			r.Kind = KindTruncated
			r.Note += fmt.Sprintf("; a checkpoint names step %d as first signed", plantLen-1)
		} else {
			r.Note += "; no signed evidence names what is missing"
		}
		r.Reason, r.Axis = Expected(r.Kind)
		out = append(out, r)
	}
	return out
}

// asqavScopeDigest is the chain scope an archive keeps for the session's
// receipts: the first 16 bytes, in hex, of SHA-256 of the format's name
// and the payload's issuer_id, org_id, agent_id and session_id, each
// after a NUL (verify's scope key, as streamrun.ScopeDigest hashes it).
func asqavScopeDigest(s *session) string {
	key := strings.Join([]string{"asqav-native", s.agent.org, s.agent.org, s.agent.id, s.id}, "\x00")
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:16])
}
