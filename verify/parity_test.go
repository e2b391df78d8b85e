package verify

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/canon"
)

// The axis-parity table (testdata/asqav/axis-parity-cases.json) holds the
// Python reference verifier's judgement of the anchors, skew, expiry and
// chain axes and of how it normalises envelopes; anchor-value-cases.json
// holds its _safe_b64 verdict on 971 anchor values. Each section is one
// table test below. Where this tool judges otherwise on purpose, the case
// is in axisParitySkips with the reason, or the equivalence is spelled out
// where the expectation is read (referenceStatus).

// axisParitySkips are cases, named "section/case", this tool judges
// differently on purpose. None at present: every case agrees, given the
// equivalences of referenceStatus.
var axisParitySkips = map[string]string{}

// normaliseNoReceipt are normalise cases this tool does not read as a
// receipt at all, with why. The reference still computes a digest and
// reports anchors SKIPPED (no anchors); this tool reports unknown_format
// and runs no other axis, which is what an absent anchors axis means here.
var normaliseNoReceipt = map[string]string{
	"bare payload, no envelope": "a payload without an envelope carries no signature to check",
}

// parityAt is the judging instant of the time sections: after 2020 and
// the lapsed production expiry (2026-06-20), before 2099. The reference
// judges against the wall clock; this tool against the injected time.
var parityAt = corpusAt

// referenceStatus turns a reference axis result into the status this tool
// must report. The reference reports anchors SKIPPED when a receipt has
// none; here that is NOT_RUN, because SKIPPED makes a receipt INCOMPLETE
// and a receipt needs no anchors to pass (project rule). Any other SKIPPED
// on the anchors axis, and any unknown status, fails the test.
func referenceStatus(t *testing.T, axis AxisName, result, note string) Status {
	t.Helper()
	switch st := Status(result); st {
	case StatusPass, StatusFail, StatusNotRun:
		return st
	case StatusSkipped:
		if axis == AxisAnchors {
			if note != "no anchors on this receipt" {
				t.Fatalf("anchors SKIPPED for an unknown cause %q", note)
			}
			return StatusNotRun
		}
		return st
	}
	t.Fatalf("unknown expected status %q", result)
	return ""
}

// parityTable reads the axis-parity table once per test.
func parityTable(t *testing.T) canon.Value {
	t.Helper()
	doc, err := canon.Parse(readFile(t, "../testdata/asqav/axis-parity-cases.json"), canon.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// paritySection returns the cases of one section, failing when it is empty.
func paritySection(t *testing.T, doc canon.Value, section string) []canon.Value {
	t.Helper()
	s := doc.Get(section)
	if s == nil || s.Kind != canon.Array || len(s.Items) == 0 {
		t.Fatalf("section %s is missing or empty", section)
	}
	return s.Items
}

// parityCase runs fn for each case of section as a subtest, skipping the
// cases of axisParitySkips.
func parityCase(t *testing.T, section string, cases []canon.Value, fn func(t *testing.T, c *canon.Value)) {
	t.Helper()
	for i := range cases {
		c := &cases[i]
		name := str(c, "name")
		t.Run(name, func(t *testing.T) {
			if why, ok := axisParitySkips[section+"/"+name]; ok {
				t.Skip(why)
			}
			fn(t, c)
		})
	}
}

// expectOf decodes a case's expect object.
func expectOf(t *testing.T, c *canon.Value, into any) {
	t.Helper()
	e := c.Get("expect")
	if e == nil {
		t.Fatal("case has no expect")
	}
	raw, err := canon.RFC8785().Append(nil, e)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		t.Fatalf("expect %s: %v", raw, err)
	}
}

func encode(t *testing.T, v *canon.Value) []byte {
	t.Helper()
	b, err := canon.RFC8785().Append(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// asqavEnvelope is {payload, signature: {alg, kid, sig: "AAAA"}} plus the
// extra members given, as the table builds its receipts.
func asqavEnvelope(payload canon.Value, extra ...canon.Member) canon.Value {
	// previousReceiptHash is required; the cases judge other axes.
	if payload.Kind == canon.Object && payload.Get("previousReceiptHash") == nil {
		payload.Members = append(append([]canon.Member(nil), payload.Members...),
			canon.Member{Name: "previousReceiptHash", Value: canon.StringValue(genesisHash)})
	}
	sig := canon.ObjectValue(
		canon.Member{Name: "alg", Value: canon.StringValue("ML-DSA-65")},
		canon.Member{Name: "kid", Value: canon.StringValue("k1")},
		canon.Member{Name: "sig", Value: canon.StringValue("AAAA")})
	return canon.ObjectValue(append([]canon.Member{{Name: "payload", Value: payload}, {Name: "signature", Value: sig}}, extra...)...)
}

// verifyAt verifies raw with no keys, judged at parityAt.
func verifyAt(t *testing.T, raw []byte) *Result {
	t.Helper()
	v, err := New(nil, WithTime(parityAt))
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify(raw)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	return res
}

func wantAxis(t *testing.T, res *Result, axis AxisName, want Status, reason Reason) {
	t.Helper()
	ax, ok := res.Axes.Get(axis)
	if !ok {
		t.Errorf("axis %s not reported, want %s", axis, want)
		return
	}
	if ax.Status != want {
		t.Errorf("axis %s: %s (%s), want %s", axis, ax.Status, ax.Note, want)
	}
	if reason != "" && ax.Status == want && ax.Reason != reason {
		t.Errorf("axis %s: reason %s, want %s", axis, ax.Reason, reason)
	}
}

// TestAxisParityAnchors: the anchors list of a canonical envelope, shape
// by shape and entry by entry.
func TestAxisParityAnchors(t *testing.T) {
	cases := paritySection(t, parityTable(t), "anchors")
	parityCase(t, "anchors", cases, func(t *testing.T, c *canon.Value) {
		var expect struct{ Result, Note string }
		expectOf(t, c, &expect)
		want := referenceStatus(t, AxisAnchors, expect.Result, expect.Note)
		res := verifyAt(t, encode(t, c.Get("envelope")))
		var reason Reason
		if want == StatusFail {
			reason = ReasonBadAnchor
		}
		wantAxis(t, res, AxisAnchors, want, reason)
		if want == StatusNotRun && slices.Contains(res.Reasons, ReasonBadAnchor) {
			t.Errorf("no anchors shows in the reasons %v", res.Reasons)
		}
		if t.Failed() {
			t.Log(dump(res))
		}
	})
}

// TestAnchorValueCorpus: every value of the anchor-value corpus, through
// safeBase64 and through the anchors axis of a receipt carrying it.
func TestAnchorValueCorpus(t *testing.T) {
	doc, err := canon.Parse(readFile(t, "../testdata/asqav/anchor-value-cases.json"), canon.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	values := doc.Get("values")
	if values == nil || len(values.Items) == 0 {
		t.Fatal("no values")
	}
	payload := canon.ObjectValue(
		canon.Member{Name: "type", Value: canon.StringValue("protectmcp:decision")},
		canon.Member{Name: "issued_at", Value: canon.StringValue("2026-06-19T00:00:00+00:00")})
	for i := range values.Items {
		c := &values.Items[i]
		v := c.Get("value")
		name := fmt.Sprintf("%03d_%s", i, strconv.QuoteToASCII(v.Text))
		t.Run(name, func(t *testing.T) {
			if v.Kind != canon.String {
				t.Fatalf("value is a %s", v.Kind)
			}
			var expect struct {
				SafeB64 bool   `json:"safe_b64"`
				Axis    string `json:"axis"`
			}
			expectOf(t, c, &expect)
			if got := safeBase64(v.Text); got != expect.SafeB64 {
				t.Errorf("safeBase64 = %v, want %v", got, expect.SafeB64)
			}
			anchor := canon.ObjectValue(
				canon.Member{Name: "type", Value: canon.StringValue("rfc3161")},
				canon.Member{Name: "value", Value: *v})
			env := asqavEnvelope(payload, canon.Member{Name: "anchors", Value: canon.Value{Kind: canon.Array, Items: []canon.Value{anchor}}})
			res := verifyAt(t, encode(t, &env))
			wantAxis(t, res, AxisAnchors, referenceStatus(t, AxisAnchors, expect.Axis, ""), "")
		})
	}
}

// TestAxisParitySkew: the issue-time grammar and the skew bound. The
// reference judges against the wall clock with a 300 s bound; this tool
// against the injected time with WithMaxSkew (5m by default), so only
// statuses are compared. An unparseable issued_at fails skew (bad_field)
// and leaves the structure axis alone, as in the reference.
func TestAxisParitySkew(t *testing.T) {
	cases := paritySection(t, parityTable(t), "skew")
	parityCase(t, "skew", cases, func(t *testing.T, c *canon.Value) {
		var expect struct {
			Result       string
			NoteContains string `json:"note_contains"`
		}
		expectOf(t, c, &expect)
		want := referenceStatus(t, AxisSkew, expect.Result, "")
		var reason Reason
		switch {
		case strings.Contains(expect.NoteContains, "within bound"):
		case strings.Contains(expect.NoteContains, "unparseable issued_at"):
			reason = ReasonBadField
		case strings.Contains(expect.NoteContains, "ahead of wall clock"):
			reason = ReasonClockSkew
		default:
			t.Fatalf("unknown expected note %q", expect.NoteContains)
		}
		issued := c.Get("issued_at")
		payload := canon.ObjectValue(
			canon.Member{Name: "type", Value: canon.StringValue("protectmcp:decision")},
			canon.Member{Name: "issued_at", Value: *issued})
		env := asqavEnvelope(payload)
		res := verifyAt(t, encode(t, &env))
		wantAxis(t, res, AxisSkew, want, reason)
		wantAxis(t, res, AxisStructure, StatusPass, "")
		if _, ok := parseTime(issued.Text); ok != (reason != ReasonBadField) {
			t.Errorf("parseTime(%q) ok = %v", issued.Text, ok)
		}
		if t.Failed() {
			t.Log(dump(res))
		}
	})
}

// TestAxisParityNormalise: the envelope shapes the hosted API answers
// with are read as the canonical envelope (same digest of {payload,
// signature}, same anchors judgement); a bare payload is no receipt.
func TestAxisParityNormalise(t *testing.T) {
	cases := paritySection(t, parityTable(t), "normalise")
	parityCase(t, "normalise", cases, func(t *testing.T, c *canon.Value) {
		var expect struct {
			Digest      string `json:"digest"`
			AnchorsAxis string `json:"anchors_axis"`
		}
		expectOf(t, c, &expect)
		want := referenceStatus(t, AxisAnchors, expect.AnchorsAxis, "no anchors on this receipt")
		raw := c.Get("raw")
		got, err := asqavEnvelopeDigest(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got != expect.Digest {
			t.Errorf("envelope digest %s, want %s", got, expect.Digest)
		}
		res := verifyAt(t, encode(t, raw))
		if why, ok := normaliseNoReceipt[str(c, "name")]; ok {
			t.Log("not a receipt here: " + why)
			if res.Format != "unknown" || res.Axes.Of(AxisStructure).Reason != ReasonUnknownFormat {
				t.Errorf("format %s, structure %v; want unknown_format", res.Format, res.Axes.Of(AxisStructure))
			}
			if _, ok := res.Axes.Get(AxisAnchors); ok || want != StatusNotRun {
				t.Errorf("anchors %v, want not run (reference %s)", res.Axes.Of(AxisAnchors), expect.AnchorsAxis)
			}
			return
		}
		if res.Format != "asqav-native" {
			t.Fatalf("format %s, want asqav-native\n%s", res.Format, dump(res))
		}
		wantAxis(t, res, AxisAnchors, want, "")
		wantAxis(t, res, AxisStructure, StatusPass, "")
		if res.Fields.KeyID == "" || res.Fields.Signature != "AAAA" {
			t.Errorf("key id %q, signature %q: the envelope's signature was not read", res.Fields.KeyID, res.Fields.Signature)
		}
		if t.Failed() {
			t.Log(dump(res))
		}
	})
}

// TestAxisParityExpiry: the expiry window read from the signed payload;
// an unreadable value fails the axis (closed). Expiry is advisory: the
// verdict is the one of the same receipt without expires_at.
func TestAxisParityExpiry(t *testing.T) {
	cases := paritySection(t, parityTable(t), "expiry")
	base := asqavEnvelope(canon.EmptyObject())
	baseline := verifyAt(t, encode(t, &base))
	parityCase(t, "expiry", cases, func(t *testing.T, c *canon.Value) {
		var expect struct {
			Result       string
			NoteContains string `json:"note_contains"`
		}
		expectOf(t, c, &expect)
		want := referenceStatus(t, AxisExpiry, expect.Result, "")
		var reason Reason
		switch n := expect.NoteContains; {
		case strings.Contains(n, "unreadable expires_at"):
			reason = ReasonBadField
		case strings.Contains(n, "lapsed"):
			reason = ReasonExpired
		case n == "receipt declares no expiry" || strings.HasSuffix(n, "is"):
		default:
			t.Fatalf("unknown expected note %q", n)
		}
		env := asqavEnvelope(*c.Get("payload"))
		res := verifyAt(t, encode(t, &env))
		wantAxis(t, res, AxisExpiry, want, reason)
		wantAxis(t, res, AxisStructure, StatusPass, "")
		if res.Verdict != baseline.Verdict || !slices.Equal(res.Reasons, baseline.Reasons) {
			t.Errorf("expiry folded the verdict: %s %v, without expires_at %s %v", res.Verdict, res.Reasons, baseline.Verdict, baseline.Reasons)
		}
		if t.Failed() {
			t.Log(dump(res))
		}
	})
}

// TestAxisParityChainPrevHash: pipelock-ev2-01 with chain_prev_hash
// substituted. Only absent, null or a sentinel is a genesis link; any other
// value names a predecessor that cannot be found (SKIPPED without one),
// and since the member is signed, any substitution fails the signature.
func TestAxisParityChainPrevHash(t *testing.T) {
	cases := paritySection(t, parityTable(t), "chain_prev_hash")
	dir := filepath.Join("..", "testdata", "receipts", "pipelock-ev2-01-proxy-decision")
	receipt := readFile(t, filepath.Join(dir, "receipt.json"))
	parityCase(t, "chain_prev_hash", cases, func(t *testing.T, c *canon.Value) {
		var expect struct {
			Verdict   Verdict
			Chain     string
			Signature string
		}
		expectOf(t, c, &expect)
		switch expect.Verdict {
		case Pass, Fail, Incomplete:
		default:
			t.Fatalf("unknown expected verdict %q", expect.Verdict)
		}
		doc, err := canon.Parse(receipt, receiptParse)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(doc.Members, func(m canon.Member) bool { return m.Name == "chain_prev_hash" })
		if i < 0 {
			t.Fatal("vector has no chain_prev_hash")
		}
		value, omit := c.Get("value"), c.Get("omit")
		switch {
		case omit != nil && omit.Kind == canon.True:
			doc.Members = slices.Delete(doc.Members, i, i+1)
		case value != nil:
			doc.Members[i].Value = *value
		}
		res, err := corpusVerifier(t, dir).Verify(encode(t, &doc))
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != expect.Verdict {
			t.Errorf("verdict %s, want %s", res.Verdict, expect.Verdict)
		}
		wantAxis(t, res, AxisChain, referenceStatus(t, AxisChain, expect.Chain, ""), "")
		wantAxis(t, res, AxisSignature, referenceStatus(t, AxisSignature, expect.Signature, ""), "")
		if t.Failed() {
			t.Log(dump(res))
		}
	})
}

// TestParityTablesComplete fails when the table grows a section no test
// above reads.
func TestParityTablesComplete(t *testing.T) {
	doc := parityTable(t)
	known := []string{"note", "anchors", "skew", "normalise", "expiry", "expiry_note", "chain_prev_hash", "chain_prev_hash_note"}
	for _, m := range doc.Members {
		if !slices.Contains(known, m.Name) {
			t.Errorf("section %s has no test", m.Name)
		}
	}
	if _, err := os.Stat("../testdata/asqav/anchor-value-cases.json"); err != nil {
		t.Error(err)
	}
}

// TestSafeBase64Table: the table-driven safeBase64 answers as the
// character switch it replaced, for every byte in every position of short
// strings and for random mixes of both alphabets, padding and stray bytes.
func TestSafeBase64Table(t *testing.T) {
	t.Parallel()
	switchForm := func(s string) bool {
		body := strings.TrimRight(s, "=")
		rem := len(body) % 4
		if body == "" || rem == 1 || len(s)-len(body) > (4-rem)%4 {
			return false
		}
		var std, url bool
		for i := 0; i < len(body); i++ {
			switch c := body[i]; {
			case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9':
			case c == '+' || c == '/':
				std = true
			case c == '-' || c == '_':
				url = true
			default:
				return false
			}
		}
		return !(std && url)
	}
	check := func(s string) {
		if got, want := safeBase64(s), switchForm(s); got != want {
			t.Fatalf("safeBase64(%q) = %v, want %v", s, got, want)
		}
	}
	for c := range 256 {
		for _, s := range []string{"AAA", "AAAA", "+AA_", "-AA/"} {
			for i := range len(s) {
				check(s[:i] + string([]byte{byte(c)}) + s[i+1:])
			}
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const alphabet = "ABCxyz019+/-_=\n \xff"
	for range 200_000 {
		b := make([]byte, rng.IntN(12))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		check(string(b))
	}
}

// TestEnvelopeDigestReusing: the anchors note's envelope digest made from
// the payload's canonical bytes, as a check has them, equals the digest of
// the envelope written whole, for every envelope shape of the parity
// table, every conformance receipt, and payloads with non-ASCII member
// names on both sides of the dialects' change of member order.
func TestEnvelopeDigestReusing(t *testing.T) {
	var docs []*canon.Value
	cases := paritySection(t, parityTable(t), "normalise")
	for i := range cases {
		docs = append(docs, cases[i].Get("raw"))
	}
	dirs, err := filepath.Glob("../testdata/receipts/*/receipt.json")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no receipts: %v", err)
	}
	for _, path := range dirs {
		doc, err := canon.Parse(readFile(t, path), canon.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &doc)
	}
	for _, issued := range []string{"2026-01-01T00:00:00Z", "2026-12-01T00:00:00Z"} {
		raw := `{"payload":{"issued_at":"` + issued + `","ｚ":1,"😀":2,"é":[1.5e3,"\u2028"],"a":{"ﬀ":null}},` +
			`"signature":{"alg":"ML-DSA-65","kid":"k","sig":"AAAA"},"anchors":[{"type":"x","value":"AAAA"}]}`
		doc, err := canon.Parse([]byte(raw), canon.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, &doc)
	}
	reused := 0
	for i, doc := range docs {
		want, werr := asqavEnvelopeDigest(doc)
		p := doc.Get("payload")
		if p == nil || asqavShapeOf(doc) == asqavNoEnvelope {
			continue
		}
		d := asqavDialect(firstStr(p, "issued_at", "timestamp"))
		pc, err := d.Append(nil, p)
		if err != nil {
			continue
		}
		reused++
		got, gerr := asqavEnvelopeDigestReusing(doc, pc, d)
		if got != want || (gerr == nil) != (werr == nil) {
			t.Errorf("document %d: %s (%v), want %s (%v)", i, got, gerr, want, werr)
		}
	}
	if reused < 10 {
		t.Errorf("only %d documents took the reusing path", reused)
	}
}
