package verify

import (
	"crypto/ecdsa"
	"crypto/sha256"
	"encoding/base64"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/limits"
	"github.com/receiptverify/verify/verify/dsse"
)

// largeStatement is an in-toto statement whose predicate is about n bytes,
// as an SBOM attestation's is.
func largeStatement(n int) string {
	var b strings.Builder
	b.WriteString(`{"_type":"https://in-toto.io/Statement/v1","predicateType":"https://spdx.dev/Document","predicate":{"packages":[`)
	for i := 0; b.Len() < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"name":"pkg:golang/example.com/m` + itoa(i) + `","sha256":"` + strings.Repeat("ab", 32) + `"}`)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// rawEnvelope is dsseEnvelope for a payload already in base64, without
// encoding/json, which is slow on megabytes under the race detector.
func rawEnvelope(payload, sig string) []byte {
	return []byte(`{"payloadType":"text/plain","payload":"` + payload + `","signatures":[{"keyid":"k","sig":"` + sig + `"}]}`)
}

// TestDSSELargePayload checks that a payload of several MiB, past the
// 64 KiB bound on signatures and keys, verifies and fails when tampered,
// with memory bounded by a small multiple of the envelope (no timing in
// the test: the allocation count stands in for the work), and that a
// payload past the line limit is refused.
func TestDSSELargePayload(t *testing.T) {
	priv, dir := dsseTestKey(t)
	v, _ := New(dir)
	body := largeStatement(3 << 20)
	h := sha256.Sum256(dsse.PAE("text/plain", []byte(body)))
	der, err := ecdsa.SignASN1(nil, priv, h[:])
	if err != nil {
		t.Fatal(err)
	}
	sig := base64.StdEncoding.EncodeToString(der)
	env := rawEnvelope(base64.StdEncoding.EncodeToString([]byte(body)), sig)

	t0 := time.Now()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := v.Verify(env)
	runtime.ReadMemStats(&after)
	t.Logf("verify: %v, %d bytes, %d allocations", time.Since(t0), after.TotalAlloc-before.TotalAlloc, after.Mallocs-before.Mallocs)
	if err != nil || res.Verdict != Pass {
		t.Fatalf("%v %s %+v", err, res.Verdict, res.Axes.Of(AxisSignature))
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 10*uint64(len(env)) {
		t.Errorf("verifying a %d-byte envelope allocated %d bytes, more than 10 times its size", len(env), alloc)
	}
	if mallocs := after.Mallocs - before.Mallocs; mallocs > uint64(len(body))/256 {
		t.Errorf("verifying a %d-byte payload took %d allocations", len(body), mallocs)
	}

	tampered := rawEnvelope(base64.StdEncoding.EncodeToString([]byte(strings.Replace(body, `m100"`, `m101"`, 1))), sig)
	if res, _ := v.Verify(tampered); res.Verdict != Fail || res.Axes.Of(AxisSignature).Reason != ReasonBadSignature {
		t.Errorf("tampered large payload: %s %+v", res.Verdict, res.Axes.Of(AxisSignature))
	}

	over := rawEnvelope(strings.Repeat("A", limits.MaxLineBytes+4), sig)
	if res, _ := v.Verify(over); res.Verdict != Fail || res.Axes.Of(AxisStructure).Reason != ReasonBadEncoding {
		t.Errorf("payload past the line limit: %s %+v", res.Verdict, res.Axes.Of(AxisStructure))
	}
}
