package receiptgen

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/dsse"
	"github.com/receiptverify/verify/verify/sigalg"
)

// Mix is how many of the N lines are receipts of other formats than Asqav
// payload mode, so that a corpus shows the formats a verifier reads side
// by side. They are clean but for one receipt of each format that carries
// a tampered_signature anomaly (taken from that kind's share of the
// Rate), and draw on a random stream of their own: the Asqav receipts of a
// corpus are the same with and without a mix, only their lines move.
//
//   - Hash: Asqav hash-mode records ({mode: "hash", payload: null, ...,
//     signature_b64}), signed by the agents' keys in keys/jwks.json over
//     the fixed 11-member signing input;
//   - DSSE: DSSE envelopes of an in-toto Statement whose predicate names
//     the action, signed by the agents' keys over the DSSE v1 PAE;
//   - AgentReceipts: agentreceipts credentials (W3C VC, Ed25519Signature2020
//     over RFC 8785 of the credential without its proof), issued by two
//     did:key identities in chains of a few receipts, each with its own
//     chain_id. A did:key needs no key file.
type Mix struct {
	Hash, DSSE, AgentReceipts int
}

func (m Mix) total() int { return m.Hash + m.DSSE + m.AgentReceipts }

// ParseMix reads a mix such as "asqav-hash=12,dsse=12,agentreceipts=16".
func ParseMix(s string) (Mix, error) {
	var mix Mix
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		name, count, ok := strings.Cut(part, "=")
		n, err := strconv.Atoi(strings.TrimSpace(count))
		if !ok || err != nil || n < 0 {
			return Mix{}, fmt.Errorf("bad mix entry %q: want format=count", part)
		}
		switch strings.TrimSpace(name) {
		case "asqav-hash":
			mix.Hash = n
		case "dsse":
			mix.DSSE = n
		case "agentreceipts":
			mix.AgentReceipts = n
		default:
			return Mix{}, fmt.Errorf("unknown mix format %q (known: asqav-hash, dsse, agentreceipts)", name)
		}
	}
	return mix, nil
}

// form is the format a slot is written in.
type form uint8

const (
	formAsqav form = iota
	formHash
	formDSSE
	formAgentReceipt
)

var formName = map[form]string{formAsqav: "asqav-native", formHash: "asqav-hash", formDSSE: "dsse-attestation", formAgentReceipt: "agentreceipts"}

// mixForms is how many mix formats have receipts, each of which takes one
// tampered_signature anomaly when the kind has one to give.
func (m Mix) forms() int {
	n := 0
	for _, c := range []int{m.Hash, m.DSSE, m.AgentReceipts} {
		if c > 0 {
			n++
		}
	}
	return n
}

// planMix adds the mix's slots to g.all, from g.mr alone.
func (g *gen) planMix() error {
	mix := g.cfg.Mix
	if mix.total() == 0 {
		return nil
	}
	r := g.mr
	active := g.agentList[:g.cfg.Agents]
	var byForm [][]*slot
	single := func(f form, n int) {
		var slots []*slot
		for range n {
			s := &session{idx: len(g.sessions), agent: active[r.IntN(len(active))]}
			g.sessions = append(g.sessions, s)
			sl := &slot{sess: s, t: g.start + r.Int64N(g.end-g.start), group: 3, form: f}
			s.slots = []*slot{sl}
			slots = append(slots, sl)
		}
		byForm = append(byForm, slots)
	}
	single(formHash, mix.Hash)
	single(formDSSE, mix.DSSE)

	if n := mix.AgentReceipts; n > 0 {
		var issuers []*agent
		for range 2 {
			pub, sign, err := newSigner(sigalg.Ed25519, seed32(r))
			if err != nil {
				return err
			}
			mb := "z" + sigalg.EncodeBase58(append([]byte{0xed, 0x01}, pub...))
			issuers = append(issuers, &agent{id: "did:key:" + mb, kid: "did:key:" + mb + "#" + mb, alg: sigalg.Ed25519, pub: pub, sign: sign})
		}
		var slots []*slot
		chains := max(1, n/5)
		for c := range chains {
			length := n / chains
			if c < n%chains {
				length++
			}
			s := &session{idx: len(g.sessions), id: "chain_" + hexN(r, 12), agent: issuers[c%len(issuers)]}
			g.sessions = append(g.sessions, s)
			for j, t := range g.timesFrom(r, length) {
				sl := &slot{sess: s, step: j, t: t, group: 3, form: formAgentReceipt}
				if j > 0 {
					sl.prev = s.slots[j-1]
				}
				s.slots = append(s.slots, sl)
				slots = append(slots, sl)
			}
		}
		byForm = append(byForm, slots)
	}
	left := g.mixTampered
	for _, slots := range byForm {
		if len(slots) == 0 || left == 0 {
			continue
		}
		slots[r.IntN(len(slots))].role = roleTamperedSignature
		left--
	}
	for _, slots := range byForm {
		g.all = append(g.all, slots...)
	}
	return nil
}

// buildMix builds a mix slot's document, its signing input and, for a
// chaining format, its chain hash, from g.mr alone.
func (g *gen) buildMix(s *slot) error {
	r := g.mr
	a := s.sess.agent
	s.tool = g.tb.pick(r, s.role.anomalous())
	s.actionID = g.unique(g.actionIDs, func() string { return "act_" + hexN(r, 20) })
	issued := time.UnixMicro(s.t).UTC()
	s.decision = "allow"
	if r.IntN(10) == 0 {
		s.decision = "deny"
	}
	ctx := obj(m("tool", str(s.tool.name)), m("args", args(r, s.tool)))
	ctxCanon, err := canon.RFC8785().Append(nil, &ctx)
	if err != nil {
		return err
	}
	ctxHash := sha256.Sum256(ctxCanon)
	switch s.form {
	case formHash:
		// The signing input, in the order the Asqav signer lists it; the
		// dialect sorts it.
		s.payload = obj(
			m("v", integer(1)),
			m("mode", str("hash")),
			m("hash", str(hex.EncodeToString(ctxHash[:]))),
			m("hash_algo", str("sha256")),
			m("metadata", obj()),
			m("server_timestamp", str(rfc3339Micro(issued))),
			m("action_id", str(s.actionID)),
			m("agent_id", str(a.id)),
			m("org_id", str(a.org)),
			m("policy_digest", str(hexN(r, 64))),
			m("policy_decision", str(s.decision)),
		)
		s.msg, err = canon.AsqavAt(issued).Append(nil, &s.payload)
	case formDSSE:
		stmt := obj(
			m("_type", str("https://in-toto.io/Statement/v1")),
			m("subject", arr(obj(m("name", str(s.actionID)), m("digest", obj(m("sha256", str(hex.EncodeToString(ctxHash[:])))))))),
			m("predicateType", str("https://asqav.com/receipt/action/v1")),
			m("predicate", obj(
				m("action_id", str(s.actionID)),
				m("action_type", str("mcp:tool_call")),
				m("agent_id", str(a.id)),
				m("issuer_id", str(a.org)),
				m("tool_name", str(s.tool.name)),
				m("tool_fingerprint", str(s.tool.fp)),
				m("issued_at", str(rfc3339Micro(issued))),
				m("decision", str(s.decision)),
			)),
		)
		var body []byte
		if body, err = canon.RFC8785().Append(nil, &stmt); err != nil {
			return err
		}
		s.payload = str(string(body))
		s.msg = dsse.PAE(dssePayloadType, body)
	case formAgentReceipt:
		prev := canon.Value{Kind: canon.Null}
		if s.prev != nil {
			prev = str("sha256:" + s.prev.hash)
		}
		when := str(issued.Format(time.RFC3339))
		s.payload = obj(
			m("@context", arr(str("https://www.w3.org/ns/credentials/v2"), str("https://agentreceipts.ai/context/v1"))),
			m("id", str("urn:receipt:"+uuidFrom(r))),
			m("type", arr(str("VerifiableCredential"), str("AgentReceipt"))),
			m("version", str("0.1.0")),
			m("issuer", obj(m("id", str(a.id)))),
			m("issuanceDate", when),
			m("credentialSubject", obj(
				m("principal", obj(m("id", str("did:user:"+hexN(r, 8))))),
				m("action", obj(
					m("id", str(s.actionID)),
					m("type", str("mcp.tool_call")),
					m("tool_name", str(s.tool.name)),
					m("risk_level", str("low")),
					m("timestamp", when),
				)),
				m("outcome", obj(m("status", str(map[string]string{"allow": "success", "deny": "denied"}[s.decision])))),
				m("chain", obj(m("sequence", integer(s.step+1)), m("previous_receipt_hash", prev), m("chain_id", str(s.sess.id)))),
			)),
		)
		s.msg, err = canon.RFC8785().Append(nil, &s.payload)
		sum := sha256.Sum256(s.msg)
		s.hash = hex.EncodeToString(sum[:])
	default:
		return errors.New("receiptgen: not a mix slot")
	}
	return err
}

const dssePayloadType = "application/vnd.in-toto+json"

func uuidFrom(r *rand.Rand) string {
	h := hexN(r, 32)
	return h[:8] + "-" + h[8:12] + "-4" + h[13:16] + "-8" + h[17:20] + "-" + h[20:]
}

// appendMix appends a mix slot's receipt and a newline: members in the
// order built, values in the format's canonical form.
func appendMix(b []byte, s *slot) []byte {
	a := s.sess.agent
	field := func(name string, v canon.Value, d canon.Dialect) {
		b = strconv.AppendQuote(b, name)
		b = append(b, ':')
		var err error
		if b, err = d.Append(b, &v); err != nil {
			panic(err) // the generator's own values always canonicalize
		}
	}
	switch s.form {
	case formHash:
		d := canon.AsqavAt(time.UnixMicro(s.t))
		b = append(b, '{')
		for i, mem := range s.payload.Members {
			if i > 0 {
				b = append(b, ',')
			}
			field(mem.Name, mem.Value, d)
		}
		b = append(b, `,"payload":null,"algorithm":`...)
		b = strconv.AppendQuote(b, string(a.alg))
		b = append(b, `,"key_id":`...)
		b = strconv.AppendQuote(b, a.kid)
		b = append(b, `,"tool_name":`...)
		b = strconv.AppendQuote(b, s.tool.name)
		b = append(b, `,"tool_fingerprint":`...)
		b = strconv.AppendQuote(b, s.tool.fp)
		b = append(b, `,"signature_b64":"`...)
		b = base64.StdEncoding.AppendEncode(b, s.sig)
		b = append(b, `","anchors":null}`...)
	case formDSSE:
		b = append(b, `{"payloadType":"`+dssePayloadType+`","payload":"`...)
		b = base64.StdEncoding.AppendEncode(b, []byte(s.payload.Text))
		b = append(b, `","signatures":[{"keyid":`...)
		b = strconv.AppendQuote(b, a.kid)
		b = append(b, `,"sig":"`...)
		b = base64.StdEncoding.AppendEncode(b, s.sig)
		b = append(b, `"}]}`...)
	case formAgentReceipt:
		b = append(b, '{')
		for i, mem := range s.payload.Members {
			if i > 0 {
				b = append(b, ',')
			}
			field(mem.Name, mem.Value, canon.RFC8785())
		}
		issued := time.UnixMicro(s.t).UTC().Format(time.RFC3339)
		b = append(b, `,"proof":{"type":"Ed25519Signature2020","created":"`+issued+`","verificationMethod":`...)
		b = strconv.AppendQuote(b, a.kid)
		b = append(b, `,"proofPurpose":"assertionMethod","proofValue":"u`...)
		b = base64.RawURLEncoding.AppendEncode(b, s.sig)
		b = append(b, `"}}`...)
	}
	return append(b, '\n')
}
