package fingerprint

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/vectors"

	"github.com/receiptverify/verify/verify/canon"
)

type undologSigVector struct {
	Name          string  `json:"name"`
	ArgsJSON      *string `json:"args_json"`
	CanonicalArgs *string `json:"canonical_args"`
	SessionID     *string `json:"session_id"`
	Signature     *string `json:"signature"`
	StepIndex     *uint32 `json:"step_index"`
	ToolName      *string `json:"tool_name"`
}

// TestUndoLogVectors checks every official vector: canonical args byte for
// byte under p3, the call signature from the parts and from a record, and
// that MatchUndoLogProfile names p3.
func TestUndoLogVectors(t *testing.T) {
	t.Parallel()
	vecs := vectors.ReadJSONL[undologSigVector](t, "../../testdata/undolog/call-signatures.jsonl")
	if len(vecs) != 96 {
		t.Fatalf("%d vectors, want 96", len(vecs))
	}
	for _, v := range vecs {
		t.Run(v.Name, func(t *testing.T) {
			if v.ArgsJSON == nil || v.CanonicalArgs == nil || v.SessionID == nil || v.Signature == nil || v.StepIndex == nil || v.ToolName == nil {
				t.Fatal("vector lacks a field")
			}
			args, err := canon.UndoLogP3().Parse([]byte(*v.ArgsJSON))
			if err != nil {
				t.Fatal(err)
			}
			got, err := canon.UndoLogP3().Append(nil, &args)
			if err != nil || string(got) != *v.CanonicalArgs {
				t.Fatalf("canonical args %s, %v; want %s", got, err, *v.CanonicalArgs)
			}
			sig, err := UndoLogSignature(canon.UndoLogP3(), *v.SessionID, *v.StepIndex, *v.ToolName, &args)
			if err != nil || sig != *v.Signature {
				t.Fatalf("signature %s, %v; want %s", sig, err, *v.Signature)
			}
			record, err := json.Marshal(map[string]any{
				"session_id": *v.SessionID, "step_index": *v.StepIndex, "tool_name": *v.ToolName,
				"args": json.RawMessage(*v.ArgsJSON),
			})
			if err != nil {
				t.Fatal(err)
			}
			if sig, err := UndoLogRecord(canon.UndoLogP3(), record); err != nil || sig != *v.Signature {
				t.Fatalf("record signature %s, %v", sig, err)
			}
			if p, err := MatchUndoLogProfile(record, *v.Signature); err != nil || p != "undolog-p3" {
				t.Fatalf("MatchUndoLogProfile = %q, %v", p, err)
			}
		})
	}
}

func TestAdvisoryLockKeys(t *testing.T) {
	t.Parallel()
	rows := vectors.ReadJSONL[struct {
		LockKey   *int64  `json:"lock_key"`
		Signature *string `json:"signature"`
	}](t, "../../testdata/undolog/advisory-lock-keys.jsonl")
	if len(rows) == 0 {
		t.Fatal("no lock key vectors")
	}
	for _, r := range rows {
		if r.LockKey == nil || r.Signature == nil {
			t.Fatalf("row lacks a field: %+v", r)
		}
		if got := AdvisoryLockKey(*r.Signature); got != *r.LockKey {
			t.Errorf("AdvisoryLockKey(%q) = %d, want %d", *r.Signature, got, *r.LockKey)
		}
	}
}

func TestUndoLogUUIDForms(t *testing.T) {
	t.Parallel()
	args := canon.EmptyObject()
	want, err := UndoLogSignature(canon.UndoLogP3(), "550e8400-e29b-41d4-a716-446655440000", 0, "ping", &args)
	if err != nil || want != "eb17211045db0ec2d3f0e8b0b10c984e889efe279a6c5eb2dca6085732ad1f61" {
		t.Fatalf("%s, %v", want, err)
	}
	for _, s := range []string{
		"550E8400-E29B-41D4-A716-446655440000",
		"550e8400e29b41d4a716446655440000",
		"{550e8400-e29b-41d4-a716-446655440000}",
		"urn:uuid:550e8400-e29b-41d4-a716-446655440000",
		"URN:UUID:550E8400-E29B-41D4-A716-446655440000",
	} {
		if got, err := UndoLogSignature(canon.UndoLogP3(), s, 0, "ping", &args); err != nil || got != want {
			t.Errorf("%q: %s, %v", s, got, err)
		}
	}
	for _, s := range []string{
		"", "550e8400-e29b-41d4-a716-44665544000", "550e8400-e29b-41d4-a716-4466554400000",
		"550e8400e29b-41d4-a716-446655440000-", "550e8400-e29b-41d4-a716-44665544000g",
		"{550e8400e29b41d4a716446655440000}", "urn:uuid:550e8400e29b41d4a716446655440000",
		"{{550e8400-e29b-41d4-a716-446655440000}}", "+50e8400e29b41d4a716446655440000",
		" 550e8400-e29b-41d4-a716-446655440000", "550e8400_e29b_41d4_a716_446655440000",
	} {
		_, err := UndoLogSignature(canon.UndoLogP3(), s, 0, "ping", &args)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "session_id" {
			t.Errorf("%q: %v, want a session_id FieldError", s, err)
		}
	}
}

func TestUndoLogRecordErrors(t *testing.T) {
	t.Parallel()
	const sid = `"session_id":"550e8400-e29b-41d4-a716-446655440000"`
	for _, c := range []struct{ record, field string }{
		{`{"step_index":0,"tool_name":"t","args":{}}`, "session_id"},
		{`{` + sid + `,"tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":-1,"tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":4294967296,"tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":1.0,"tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":1e0,"tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":"1","tool_name":"t","args":{}}`, "step_index"},
		{`{` + sid + `,"step_index":0,"args":{}}`, "tool_name"},
		{`{` + sid + `,"step_index":0,"tool_name":7,"args":{}}`, "tool_name"},
		{`{` + sid + `,"step_index":0,"tool_name":"\ud800","args":{}}`, "tool_name"},
		{`{` + sid + `,"step_index":0,"tool_name":"t"}`, "args"},
		{`{"session_id":7,"step_index":0,"tool_name":"t","args":{}}`, "session_id"},
	} {
		_, err := UndoLogRecord(canon.UndoLogP3(), []byte(c.record))
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%s: %v, want a FieldError on %s", c.record, err, c.field)
		}
	}
	ok := []string{
		`{` + sid + `,"step_index":4294967295,"tool_name":"t","args":null}`,
		`{` + sid + `,"step_index":-0,"tool_name":"t","args":[1,"two"],"extra":1}`,
	}
	for _, r := range ok {
		if _, err := UndoLogRecord(canon.UndoLogP3(), []byte(r)); err != nil {
			t.Errorf("%s: %v", r, err)
		}
	}
	if _, err := UndoLogRecord(canon.UndoLogP3(), []byte(`[1]`)); err == nil {
		t.Error("array record accepted")
	}
}

func TestUndoLogStepAndArgsSensitivity(t *testing.T) {
	t.Parallel()
	const sid = "550e8400-e29b-41d4-a716-446655440000"
	a, _ := canon.UndoLogP3().Parse([]byte(`{"b":1,"a":2}`))
	b, _ := canon.UndoLogP3().Parse([]byte(`{"a":2,"b":1}`))
	s1, _ := UndoLogSignature(canon.UndoLogP3(), sid, 1, "t", &a)
	s2, _ := UndoLogSignature(canon.UndoLogP3(), sid, 1, "t", &b)
	s3, _ := UndoLogSignature(canon.UndoLogP3(), sid, 2, "t", &a)
	if s1 != s2 || s1 == s3 || len(s1) != UndoLogSignatureLen {
		t.Fatalf("%s %s %s", s1, s2, s3)
	}
	// The length prefixes keep ("ab", "c") and ("a", "bc") apart.
	c := canon.StringValue("c")
	bc := canon.StringValue("bc")
	x, _ := UndoLogSignature(canon.UndoLogP3(), sid, 1, "ab", &c)
	y, _ := UndoLogSignature(canon.UndoLogP3(), sid, 1, "a", &bc)
	if x == y {
		t.Fatal("boundary collision")
	}
	if _, err := UndoLogSignature(canon.UndoLogP3(), sid, 1, "t", nil); err == nil {
		t.Fatal("nil args accepted")
	}
}

// TestMatchUndoLogProfile builds a record whose canonical form differs in
// every profile and checks that each profile's own signature is attributed
// to it, and that a foreign signature matches none.
func TestMatchUndoLogProfile(t *testing.T) {
	t.Parallel()
	record := []byte(`{"session_id":"550e8400-e29b-41d4-a716-446655440000","step_index":3,"tool_name":"pay",` +
		`"args":{"note":"café","amount":1.0,"tiny":1e-5,"n":-0,"big":9007199254740993,"😀":1,"ﬁ":2}}`)
	seen := map[string]string{}
	for _, d := range UndoLogProfiles() {
		sig, err := UndoLogRecord(d, record)
		if err != nil {
			t.Fatalf("%s: %v", d.Name(), err)
		}
		if other, dup := seen[sig]; dup {
			t.Fatalf("%s and %s agree; the test record should separate them", other, d.Name())
		}
		seen[sig] = d.Name()
		got, err := MatchUndoLogProfile(record, sig)
		if err != nil || got != d.Name() {
			t.Errorf("MatchUndoLogProfile(%s's signature) = %q, %v", d.Name(), got, err)
		}
	}
	foreign := strings.Repeat("ab", 32)
	got, err := MatchUndoLogProfile(record, foreign)
	var mm *UndoLogMismatch
	if got != "" || !errors.Is(err, ErrNoUndoLogProfile) || !errors.As(err, &mm) || len(mm.Attempts) != len(UndoLogProfiles()) {
		t.Fatalf("foreign signature: %q, %v", got, err)
	}
	// A lone surrogate: the Rust profiles cannot read the record at all,
	// and the mismatch says so per profile.
	lone := []byte(`{"session_id":"550e8400-e29b-41d4-a716-446655440000","step_index":0,"tool_name":"t","args":"\ud800"}`)
	_, err = MatchUndoLogProfile(lone, foreign)
	if !errors.As(err, &mm) || mm.Attempts[0].Err != nil || mm.Attempts[1].Err == nil {
		t.Fatalf("lone surrogate: %v", err)
	}
	for _, bad := range []string{"", strings.Repeat("AB", 32), strings.Repeat("a", 63)} {
		var fe *FieldError
		if _, err := MatchUndoLogProfile(record, bad); !errors.As(err, &fe) || fe.Field != "call_signature" {
			t.Errorf("stored %q: %v", bad, err)
		}
	}
	var fe *FieldError
	if _, err := MatchUndoLogProfile([]byte(`{"session_id":"x","step_index":0,"tool_name":"t","args":{}}`), foreign); !errors.As(err, &fe) || fe.Field != "session_id" {
		t.Errorf("bad session: %v", err)
	}
}
