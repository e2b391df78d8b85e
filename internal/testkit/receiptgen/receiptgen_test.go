package receiptgen_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/sigalg"
	"github.com/receiptverify/verify/verify/toolschema"
)

func generate(t testing.TB, cfg receiptgen.Config) (*receiptgen.MemSink, *receiptgen.Truth) {
	t.Helper()
	sink := receiptgen.NewMemSink()
	truth, err := receiptgen.Generate(cfg, sink)
	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	return sink, truth
}

func splitLines(t testing.TB, data []byte) [][]byte {
	t.Helper()
	if len(data) == 0 {
		return nil
	}
	if data[len(data)-1] != '\n' {
		t.Fatal("file does not end in a newline")
	}
	return bytes.Split(data[:len(data)-1], []byte("\n"))
}

// payload is the part of a receipt the tests read.
type payload struct {
	ActionID  string `json:"action_id"`
	AgentID   string `json:"agent_id"`
	IssuerID  string `json:"issuer_id"`
	SessionID string `json:"session_id"`
	Step      int    `json:"step"`
	ToolName  string `json:"tool_name"`
	ToolFP    string `json:"tool_fingerprint"`
	Nonce     string `json:"nonce"`
	IssuedAt  string `json:"issued_at"`
	Prev      string `json:"previousReceiptHash"`
}

func payloads(t testing.TB, lines [][]byte) []payload {
	t.Helper()
	out := make([]payload, len(lines))
	for i, l := range lines {
		var r struct {
			Payload payload `json:"payload"`
		}
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		out[i] = r.Payload
	}
	return out
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	cfg := receiptgen.Config{Seed: 7, N: 300, Rate: 0.1, Workers: 1}
	a, _ := generate(t, cfg)
	cfg.Workers = 3
	b, _ := generate(t, cfg)
	if !slices.Equal(a.Names(), b.Names()) {
		t.Fatalf("file sets differ: %v vs %v", a.Names(), b.Names())
	}
	for _, name := range a.Names() {
		if !bytes.Equal(a.File(name), b.File(name)) {
			t.Errorf("%s differs between two runs", name)
		}
	}
	cfg.Seed = 8
	c, _ := generate(t, cfg)
	if bytes.Equal(a.File(receiptgen.FileReceipts), c.File(receiptgen.FileReceipts)) {
		t.Error("seeds 7 and 8 gave the same receipts")
	}
	// Several signing chunks.
	big := receiptgen.Config{Seed: 7, N: 5000, Rate: 0.05, Algs: receiptgen.Ed25519Only(), Workers: 1}
	d, _ := generate(t, big)
	big.Workers = 4
	e, _ := generate(t, big)
	for _, name := range d.Names() {
		if !bytes.Equal(d.File(name), e.File(name)) {
			t.Errorf("n=5000: %s differs between 1 and 4 workers", name)
		}
	}
}

func TestLayout(t *testing.T) {
	t.Parallel()
	sink, truth := generate(t, receiptgen.Config{Seed: 1, N: 50, Rate: 0.1, Algs: receiptgen.Ed25519Only()})
	want := []string{"keys/jwks.json", "receipts.jsonl", "schemas/billing.json", "schemas/crm.json",
		"schemas/files.json", "schemas/helpdesk.json", "truth.jsonl"}
	if got := sink.Names(); !slices.Equal(got, want) {
		t.Fatalf("files %v, want %v", got, want)
	}
	if got := slices.Sorted(slices.Values(truth.Files)); !slices.Equal(got, want) {
		t.Errorf("Truth.Files %v, want %v", got, want)
	}
	// The JSON contract of truth.jsonl.
	for _, l := range splitLines(t, sink.File(receiptgen.FileTruth)) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatal(err)
		}
		keys := slices.Sorted(func(yield func(string) bool) {
			for k := range m {
				if !yield(k) {
					return
				}
			}
		})
		var want []string
		if m["kind"] == string(receiptgen.KindNameCollision) {
			want = []string{"day", "fingerprints", "kind", "line", "note", "reason", "servers", "tool_name"}
		} else {
			want = []string{"action_id", "axis", "day", "kind", "line", "note", "reason"}
		}
		if !slices.Equal(keys, want) {
			t.Errorf("truth line %s: keys %v, want %v", l, keys, want)
		}
	}
}

func TestCounts(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		n    int
		rate float64
	}{{300, 0.1}, {1000, 0.05}, {40, 0}, {0, 0}, {17, 0.5}} {
		sink, truth := generate(t, receiptgen.Config{Seed: 3, N: tc.n, Rate: tc.rate, Algs: receiptgen.Ed25519Only()})
		lines := splitLines(t, sink.File(receiptgen.FileReceipts))
		if len(lines) != tc.n || truth.Lines != tc.n {
			t.Errorf("n=%d: %d lines written, Truth.Lines %d", tc.n, len(lines), truth.Lines)
		}
		total := int(tc.rate*float64(tc.n) + 0.5)
		if got := len(truth.Anomalies()); got != total {
			t.Errorf("n=%d rate=%v: %d anomalies, want %d", tc.n, tc.rate, got, total)
		}
		sum := 0
		for _, k := range receiptgen.Kinds() {
			c := truth.Counts[k]
			sum += c
			if c < total/len(receiptgen.Kinds()) || c > total/len(receiptgen.Kinds())+1 {
				t.Errorf("n=%d: %d %s, not an even share of %d", tc.n, c, k, total)
			}
		}
		if sum != total || truth.Removed != truth.Counts[receiptgen.KindAbsent] {
			t.Errorf("n=%d: counts %v sum to %d (want %d), removed %d", tc.n, truth.Counts, sum, total, truth.Removed)
		}
	}
}

func TestTruthNamesItsLines(t *testing.T) {
	t.Parallel()
	sink, truth := generate(t, receiptgen.Config{Seed: 5, N: 2000, Rate: 0.08, Algs: receiptgen.Ed25519Only()})
	ps := payloads(t, splitLines(t, sink.File(receiptgen.FileReceipts)))
	seen := map[int]bool{}
	for _, r := range truth.Anomalies() {
		if r.Line < 1 || r.Line > len(ps) {
			t.Fatalf("%s: line %d out of range", r.Kind, r.Line)
		}
		if seen[r.Line] {
			t.Errorf("line %d carries two anomalies", r.Line)
		}
		seen[r.Line] = true
		p := ps[r.Line-1]
		if p.ActionID != r.ActionID {
			t.Errorf("%s at line %d: action_id %s, receipt has %s", r.Kind, r.Line, r.ActionID, p.ActionID)
		}
		if r.Day != p.IssuedAt[:10] {
			t.Errorf("line %d: day %s, issued %s", r.Line, r.Day, p.IssuedAt)
		}
		if reason, axis := receiptgen.Expected(r.Kind); r.Reason != reason || r.Axis != axis {
			t.Errorf("line %d: %s/%s for %s", r.Line, r.Reason, r.Axis, r.Kind)
		}
	}

	// Recompute the name collisions from the receipts and the schemas.
	set := schemaSet(t, sink)
	colliding := map[string]bool{}
	for _, c := range set.Collisions() {
		colliding[c.Name] = true
	}
	if len(colliding) < 2 {
		t.Fatalf("only %d colliding tool names", len(colliding))
	}
	type key struct{ day, name string }
	fps := map[key]map[string]bool{}
	for _, p := range ps {
		if m, _ := set.Lookup(p.ToolName, p.ToolFP); m != toolschema.Matched || !colliding[p.ToolName] {
			continue
		}
		k := key{p.IssuedAt[:10], p.ToolName}
		if fps[k] == nil {
			fps[k] = map[string]bool{}
		}
		fps[k][p.ToolFP] = true
	}
	want := map[key][]string{}
	for k, v := range fps {
		if len(v) > 1 {
			want[k] = slices.Sorted(func(yield func(string) bool) {
				for fp := range v {
					if !yield(fp) {
						return
					}
				}
			})
		}
	}
	got := map[key][]string{}
	for _, r := range truth.Records {
		if r.Kind == receiptgen.KindNameCollision {
			if r.Line != 0 || r.Reason != "collision" || len(r.Servers) != len(r.Fingerprints) {
				t.Errorf("bad collision record %+v", r)
			}
			got[key{r.Day, r.ToolName}] = r.Fingerprints
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d collision records, recomputed %d", len(got), len(want))
	}
	for k, v := range want {
		if !slices.Equal(got[k], v) {
			t.Errorf("collision %v: truth %v, recomputed %v", k, got[k], v)
		}
	}
}

func TestReasonsAreVerifys(t *testing.T) {
	t.Parallel()
	want := map[receiptgen.Kind][2]string{
		receiptgen.KindTamperedPayload:   {string(verify.ReasonBadSignature), string(verify.AxisSignature)},
		receiptgen.KindTamperedSignature: {string(verify.ReasonBadSignature), string(verify.AxisSignature)},
		receiptgen.KindRevokedKey:        {string(verify.ReasonKeyRevoked), string(verify.AxisKeyStatus)},
		receiptgen.KindChainBreak:        {string(verify.ReasonChainBreak), string(verify.AxisChain)},
		receiptgen.KindFork:              {string(verify.ReasonChainFork), string(verify.AxisChain)},
		receiptgen.KindAbsent:            {string(verify.ReasonChainAbsent), string(verify.AxisChain)},
		receiptgen.KindReplayedNonce:     {string(verify.ReasonNonceReplay), string(verify.AxisNonce)},
		receiptgen.KindSchemaDrift:       {string(verify.ReasonToolDrift), string(verify.AxisToolFingerprint)},
	}
	for _, k := range receiptgen.Kinds() {
		reason, axis := receiptgen.Expected(k)
		if w := want[k]; reason != w[0] || axis != w[1] {
			t.Errorf("%s: %s/%s, verify says %s/%s", k, reason, axis, w[0], w[1])
		}
	}
}

func schemaSet(t testing.TB, sink *receiptgen.MemSink) *toolschema.Set {
	t.Helper()
	set := toolschema.NewSet()
	for _, name := range sink.Names() {
		if strings.HasPrefix(name, receiptgen.SchemaDir+"/") {
			if err := set.Add(toolschema.ServerName(name), sink.File(name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	return set
}

func keyDir(t testing.TB, sink *receiptgen.MemSink) *keys.Directory {
	t.Helper()
	snap, err := keys.Load(receiptgen.FileJWKS, sink.File(receiptgen.FileJWKS))
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Skipped) > 0 || snap.Format != keys.FormatAsqavJWKS {
		t.Fatalf("JWKS: format %s, skipped %v", snap.Format, snap.Skipped)
	}
	revoked := 0
	for _, k := range snap.Keys {
		if k.Status == keys.StatusRevoked {
			revoked++
		}
	}
	if revoked != 1 {
		t.Fatalf("%d revoked keys, want 1", revoked)
	}
	dir, err := keys.NewDirectory(snap)
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestVerifies checks every receipt with verify: planted receipts fail
// exactly where truth says, the rest pass; and a stream walk following the
// verifier's chain and nonce rules finds exactly the planted chain and
// nonce anomalies, so nothing accidental fires.
func TestVerifies(t *testing.T) {
	t.Parallel()
	for _, cfg := range []receiptgen.Config{
		{Seed: 1, N: 300, Rate: 0.1},
		{Seed: 2, N: 3000, Rate: 0.05, Algs: receiptgen.Ed25519Only()},
		{Seed: 3, N: 200, Rate: 0.1, Start: time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC), Days: 3}, // spans the Asqav dialect switch
	} {
		sink, truth := generate(t, cfg)
		checkCorpus(t, sink, truth, cfg)
	}
}

func checkCorpus(t *testing.T, sink *receiptgen.MemSink, truth *receiptgen.Truth, cfg receiptgen.Config) {
	t.Helper()
	start := cfg.Start
	if start.IsZero() {
		start = receiptgen.DefaultStart()
	}
	days := cfg.Days
	if days == 0 {
		days = receiptgen.DefaultDays
	}
	end := start.AddDate(0, 0, days)
	v, err := verify.New(keyDir(t, sink), verify.WithSchemas(schemaSet(t, sink)), verify.WithTime(end))
	if err != nil {
		t.Fatal(err)
	}
	lines := splitLines(t, sink.File(receiptgen.FileReceipts))
	byLine := truth.ByLine()
	type found struct {
		line   int
		reason string
	}
	var got []found
	results := make([]*verify.Result, len(lines))
	algs := map[string]bool{}
	for i, l := range lines {
		res, err := v.Verify(l)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		results[i] = res
		algs[res.Fields.Alg] = true
		rec, planted := byLine[i+1]
		for name, ax := range res.Axes.All() {
			switch {
			case ax.Status == verify.StatusFail && name != verify.AxisExpiry:
				got = append(got, found{i + 1, string(ax.Reason)})
			case ax.Status == verify.StatusSkipped && name != verify.AxisChain:
				t.Errorf("line %d: axis %s skipped: %s", i+1, name, ax.Note)
			}
		}
		if !planted && res.Verdict != verify.Pass {
			t.Errorf("line %d: clean receipt is %s %v", i+1, res.Verdict, res.Reasons)
		}
		if planted && (rec.Axis == string(verify.AxisChain) || rec.Axis == string(verify.AxisNonce)) {
			if res.Verdict != verify.Pass {
				t.Errorf("line %d (%s): single-receipt verdict %s %v", i+1, rec.Kind, res.Verdict, res.Reasons)
			}
		}
		if ax := res.Axes.Of(verify.AxisChain); ax.Status != verify.StatusPass && ax.Status != verify.StatusSkipped {
			t.Errorf("line %d: chain axis %s", i+1, ax.Status)
		}
	}
	if cfg.Algs == nil {
		for _, a := range []sigalg.Alg{sigalg.MLDSA44, sigalg.MLDSA65, sigalg.MLDSA87, sigalg.Ed25519} {
			if !algs[string(a)] {
				t.Errorf("no receipt signed with %s", a)
			}
		}
	}

	// The stream rules: resolve each link against the whole input, each
	// receipt's chain being its ScopeKey.
	byHash := map[string]string{}
	for _, r := range results {
		byHash[r.Fingerprints.ChainHash] = r.ScopeKey()
	}
	named := map[string]bool{}
	nonces := map[[2]string]bool{}
	for i, r := range results {
		if prev, genesis, present := r.ChainLink(); present && !genesis {
			id, ok := byHash[prev]
			switch {
			case !ok:
				got = append(got, found{i + 1, string(verify.ReasonChainAbsent)})
			case id != r.ScopeKey():
				got = append(got, found{i + 1, string(verify.ReasonChainBreak)})
			case named[prev]:
				got = append(got, found{i + 1, string(verify.ReasonChainFork)})
			}
			named[prev] = true
		}
		k := [2]string{r.Fields.IssuerID, r.Fields.Nonce}
		if nonces[k] {
			got = append(got, found{i + 1, string(verify.ReasonNonceReplay)})
		}
		nonces[k] = true
	}
	var want []found
	for _, r := range truth.Anomalies() {
		want = append(want, found{r.Line, r.Reason})
	}
	cmp := func(a, b found) int {
		if a.line != b.line {
			return a.line - b.line
		}
		return strings.Compare(a.reason, b.reason)
	}
	slices.SortFunc(got, cmp)
	slices.SortFunc(want, cmp)
	if !slices.Equal(got, want) {
		t.Errorf("findings differ from truth\n got %v\nwant %v", got, want)
	}

	// Times: inside the window, increasing within a session.
	last := map[string]string{}
	for i, p := range payloads(t, lines) {
		at, err := time.Parse(time.RFC3339Nano, p.IssuedAt)
		if err != nil || at.Before(start) || !at.Before(end) || len(p.IssuedAt) != len("2026-11-01T00:00:00.000000Z") {
			t.Errorf("line %d: issued_at %s outside [%s, %s)", i+1, p.IssuedAt, start, end)
		}
		if prev := last[p.SessionID]; prev >= p.IssuedAt {
			t.Errorf("line %d: issued_at %s not after %s in its session", i+1, p.IssuedAt, prev)
		}
		last[p.SessionID] = p.IssuedAt
	}
}

func TestGzipAndDir(t *testing.T) {
	t.Parallel()
	cfg := receiptgen.Config{Seed: 9, N: 120, Rate: 0.1, Algs: receiptgen.Ed25519Only()}
	plain, _ := generate(t, cfg)

	dir := t.TempDir()
	cfg.Gzip = true
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, receiptgen.FileReceiptGz))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(bufio.NewReader(f))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, plain.File(receiptgen.FileReceipts)) {
		t.Error("gunzipped receipts differ from the plain run")
	}
	for _, name := range []string{receiptgen.FileJWKS, receiptgen.FileTruth, "schemas/crm.json"} {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(b, plain.File(name)) {
			t.Errorf("%s on disk differs from memory (%v)", name, err)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	t.Parallel()
	for _, cfg := range []receiptgen.Config{
		{N: -1},
		{N: 100, Rate: 0.6},
		{N: 100, Rate: -0.1},
		{N: 10, Rate: 0.5, Agents: 1, Orgs: 1, SessionsPerAgent: 1},
		{N: 100, Algs: []receiptgen.AlgWeight{{sigalg.ES256, 1}}},
		{N: 100, Algs: []receiptgen.AlgWeight{{sigalg.Ed25519, 0}}},
		{N: 100, Agents: 1, Orgs: 2},
		{N: 1000, Rate: 0.5, Agents: 2, SessionsPerAgent: 1},
	} {
		if _, err := receiptgen.Generate(cfg, receiptgen.NewMemSink()); err == nil {
			t.Errorf("%+v: no error", cfg)
		}
	}
}

func TestParseAlgs(t *testing.T) {
	t.Parallel()
	got, err := receiptgen.ParseAlgs("ML-DSA-65=6, ml-dsa-44=2,Ed25519")
	want := []receiptgen.AlgWeight{{sigalg.MLDSA65, 6}, {sigalg.MLDSA44, 2}, {sigalg.Ed25519, 1}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("got %v, %v", got, err)
	}
	for _, bad := range []string{"", "RSA", "Ed25519=x", "ML-DSA-65=-1"} {
		if _, err := receiptgen.ParseAlgs(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func benchmarkGenerate(b *testing.B, n int, algs []receiptgen.AlgWeight) {
	for b.Loop() {
		if _, err := receiptgen.Generate(receiptgen.Config{Seed: 1, N: n, Rate: 0.05, Algs: algs}, receiptgen.NewMemSink()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "receipts/s")
}

func BenchmarkGenerateMLDSA65(b *testing.B) {
	benchmarkGenerate(b, 2000, []receiptgen.AlgWeight{{sigalg.MLDSA65, 1}})
}

func BenchmarkGenerateEd25519(b *testing.B) { benchmarkGenerate(b, 10000, receiptgen.Ed25519Only()) }

// TestCompletenessPlants: each set plants six sessions, three under a
// checkpoint (truncated) and three without (no_evidence), writes the
// witness key and the checkpoints, and still writes N lines.
func TestCompletenessPlants(t *testing.T) {
	t.Parallel()
	sink, truth := generate(t, receiptgen.Config{Seed: 1, N: 80, Algs: receiptgen.Ed25519Only(), Completeness: 2})
	if got := len(splitLines(t, sink.File(receiptgen.FileReceipts))); got != 80 || truth.Lines != 80 {
		t.Errorf("%d lines (truth %d), want 80", got, truth.Lines)
	}
	if got := len(splitLines(t, sink.File(receiptgen.FileCheckpoints))); got != 8 {
		t.Errorf("%d checkpoints, want 8: three plants and a clean chain per set", got)
	}
	if len(sink.File(receiptgen.FileWitness)) == 0 || truth.Cut != 32 {
		t.Errorf("witness key %q, %d receipts cut (want 32: 2+2+6+6 a set)", sink.File(receiptgen.FileWitness), truth.Cut)
	}
	kinds := map[receiptgen.Kind]map[string]int{}
	for _, r := range truth.Records {
		if r.Kind != receiptgen.KindTruncated && r.Kind != receiptgen.KindNoEvidence {
			continue
		}
		if r.Line != 0 || r.ChainScope == "" || r.SessionID == "" {
			t.Errorf("record %+v", r)
		}
		if kinds[r.Kind] == nil {
			kinds[r.Kind] = map[string]int{}
		}
		kinds[r.Kind][r.Plant]++
	}
	for _, k := range []receiptgen.Kind{receiptgen.KindTruncated, receiptgen.KindNoEvidence} {
		if want := map[string]int{"tail_deleted": 2, "session_removed": 2, "chain_rewritten": 2}; !maps.Equal(kinds[k], want) {
			t.Errorf("%s plants %v, want %v", k, kinds[k], want)
		}
	}
	if _, err := receiptgen.Generate(receiptgen.Config{N: 30, Completeness: 2}, receiptgen.NewMemSink()); err == nil {
		t.Error("n too small for the plants must be an error")
	}
}
