package verify

import (
	"strings"
	"testing"
)

// TestUnknownFormatIncomplete: a document no detector claims is not
// checked, which is not failed: INCOMPLETE with unknown_format, the note
// naming its top-level members.
func TestUnknownFormatIncomplete(t *testing.T) {
	t.Parallel()
	v, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := v.Verify([]byte(`{"span":{"actor":"a"},"sig":"cd","trace_id":"ef"}`))
	if err != nil {
		t.Fatal(err)
	}
	ax := res.Axes.Of(AxisStructure)
	if res.Verdict != Incomplete || res.Format != UnknownFormat || len(res.Reasons) != 1 || res.Reasons[0] != ReasonUnknownFormat || !IsUnknownFormat(res) {
		t.Fatalf("got %s %s %v; want INCOMPLETE unknown [unknown_format]", res.Verdict, res.Format, res.Reasons)
	}
	if !strings.Contains(ax.Note, "sig, span, trace_id") {
		t.Errorf("note %q does not name the members", ax.Note)
	}
	known, _ := v.Verify([]byte(`{"type":["VerifiableCredential","AgentReceipt"],"proof":{"type":"DataIntegrityProof"}}`))
	if known.Verdict != Fail || IsUnknownFormat(known) {
		t.Errorf("a known format's broken receipt: %s, unknown %v; want FAIL, false", known.Verdict, IsUnknownFormat(known))
	}
}
