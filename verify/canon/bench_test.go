package canon

import (
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gowebpki/jcs"
)

// The benchmarks canonicalize one ~1 KiB receipt-like document. Run them
// side by side (go test -bench . -benchmem ./verify/canon/) and compare
// ratios: absolute times drift on shared machines.
func benchDialect(b *testing.B, d Dialect) {
	raw := readFile(b, "../../testdata/bench/receipt-1k.json")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		var err error
		if dst, err = d.AppendCanonical(dst[:0], raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRFC8785(b *testing.B)        { benchDialect(b, RFC8785()) }
func BenchmarkAsqav(b *testing.B)          { benchDialect(b, Asqav()) }
func BenchmarkAsqavCodePoint(b *testing.B) { benchDialect(b, AsqavCodePoint()) }

// BenchmarkGowebpkiJCS is the baseline: github.com/gowebpki/jcs v1.0.2 on
// the same document.
func BenchmarkGowebpkiJCS(b *testing.B) {
	raw := readFile(b, "../../testdata/bench/receipt-1k.json")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	want, err := RFC8785().Canonicalize(raw)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		got, err := jcs.Transform(raw)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(want) {
			b.Fatalf("gowebpki/jcs output differs: %s", got)
		}
	}
}

// receiptLine is an Asqav() receipt as one JSON Lines line (~5.3 KB), shaped
// like the ones the verifier reads: a payload of about twenty members with
// a nested context, and an ML-DSA-65 signature, whose 3,309 bytes are
// 4,412 characters of base64url, from a fixed seed.
func receiptLine(tb testing.TB) (line, payload []byte) {
	tb.Helper()
	payload = []byte(`{"v":1,"type":"protectmcp:decision","action_id":"act_7413a22ee8a1c7ee466d",` +
		`"agent_id":"agent-01-0b6dea","issuer_id":"org_5c82a05e4a32","org_id":"org_5c82a05e4a32",` +
		`"session_id":"sess_80bfeaeb422af7fa","step":0,"action_type":"mcp:tool_call","tool_name":"files.write",` +
		`"tool_fingerprint":"1e41df739c433ce3bf80c79220e7fc98",` +
		`"context":{"args":{"append":false,"content":"# invoice mismatch\n\ninvoice mismatch","path":"/srv/shared/reports/notes-ec9a.md"},"tool":"files.write"},` +
		`"action_ref":"sha256:86b5b06e6c363ebf11bf761f4a4ad4bf89e33aa21b52322e59e318bd9b0233a6",` +
		`"payload_digest":{"hash":"29364acef1212c3783e1457429649c8a0767f2784b399fe05cb00fdd936a2b12","size":140},` +
		`"nonce":"d1824b70479ff61b66605821","issued_at":"2026-11-01T00:10:03.609697Z",` +
		`"expires_at":"2026-12-01T00:10:03.609697Z","decision":"allow",` +
		`"previousReceiptHash":"0000000000000000000000000000000000000000000000000000000000000000"}`)
	sig := make([]byte, 3309)
	rand.NewChaCha8([32]byte{7}).Read(sig)
	line = fmt.Appendf(nil, `{"payload":%s,"signature":{"alg":"ML-DSA-65","kid":"key_17507053a62fab68","sig":%q},"anchors":[]}`,
		payload, base64.RawURLEncoding.EncodeToString(sig))
	return line, payload
}

// BenchmarkParseReceiptLine parses a whole receipt line, as the verifier
// does for every receipt it reads: without a copy of the line.
func BenchmarkParseReceiptLine(b *testing.B) {
	line, _ := receiptLine(b)
	b.SetBytes(int64(len(line)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseBorrowed(line, Asqav().p.parse); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendReceiptPayload writes the canonical form of a parsed
// receipt payload, the bytes an Asqav() signature covers.
func BenchmarkAppendReceiptPayload(b *testing.B) {
	_, payload := receiptLine(b)
	v, err := Asqav().Parse(payload)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(payload)))
	b.ReportAllocs()
	var dst []byte
	for b.Loop() {
		if dst, err = Asqav().Append(dst[:0], &v); err != nil {
			b.Fatal(err)
		}
	}
}
