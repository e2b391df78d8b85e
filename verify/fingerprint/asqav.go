package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/receiptverify/verify/verify/canon"
)

// AsqavAction returns the Asqav action fingerprint, "sha256:" + lowercase
// hex SHA-256 of the canonical {"action_type", "context"}. A missing or null
// context is hashed as {}, as the SDK's `context or {}` does.
func AsqavAction(d canon.Dialect, actionType, context *canon.Value) (string, error) {
	ctx, err := CanonicalContext(d, context)
	if err != nil {
		return "", err
	}
	return ctx.Action(actionType)
}

// PayloadDigest is the Asqav payload_digest: the SHA-256 and byte length of
// the canonical context.
type PayloadDigest struct {
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// AsqavPayloadDigest computes the payload_digest of context (missing or
// null counts as {}).
func AsqavPayloadDigest(d canon.Dialect, context *canon.Value) (PayloadDigest, error) {
	ctx, err := CanonicalContext(d, context)
	if err != nil {
		return PayloadDigest{}, err
	}
	return ctx.Digest(), nil
}

// AsqavContext is an action context canonicalized once, from which both
// its payload_digest and action fingerprints follow: a verifier that checks
// both canonicalizes the context once, not twice.
type AsqavContext struct {
	d    canon.Dialect
	text []byte
}

// CanonicalContext canonicalizes context (missing or null counts as {})
// under d, one of the Asqav-family dialects (rfc8785, asqav,
// asqav-codepoint).
func CanonicalContext(d canon.Dialect, context *canon.Value) (AsqavContext, error) {
	ctx := orEmptyObject(context)
	b, err := d.Append(nil, &ctx)
	if err != nil {
		return AsqavContext{}, err
	}
	return AsqavContext{d: d, text: b}, nil
}

// AsqavContextOf is the context whose canonical form under d, one of the
// Asqav-family dialects, is text: written already, inside the canonical
// payload (canon.Dialect.AppendMarked). text must stay unchanged while
// the AsqavContext is in use.
func AsqavContextOf(d canon.Dialect, text []byte) AsqavContext {
	return AsqavContext{d: d, text: text}
}

// Digest is the context's payload_digest.
func (c AsqavContext) Digest() PayloadDigest {
	sum := sha256.Sum256(c.text)
	return PayloadDigest{Hash: hex.EncodeToString(sum[:]), Size: len(c.text)}
}

// Action is the action fingerprint of actionType with this context. The
// canonical {"action_type", "context"} is written around the canonical
// context: "action_type" sorts before "context" in code-point and UTF-16
// order alike, and these dialects write an object as its members in order,
// so the bytes are those of canonicalizing the whole object
// (TestAsqavContextComposition pins it).
func (c AsqavContext) Action(actionType *canon.Value) (string, error) {
	if actionType == nil {
		return "", fmt.Errorf("action_type is missing")
	}
	at, err := c.d.Append(nil, actionType)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write([]byte(`{"action_type":`))
	h.Write(at)
	h.Write([]byte(`,"context":`))
	h.Write(c.text)
	h.Write([]byte(`}`))
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}

// ToolFingerprintLen is the length of an Asqav tool_fingerprint in hex
// characters (128 bits).
const ToolFingerprintLen = 32

// AsqavTool returns the Asqav tool_fingerprint: the first 32 lowercase hex
// characters of SHA-256 over the canonical {"tool_name", "schema"}. A
// missing or null schema is hashed as {}.
func AsqavTool(d canon.Dialect, toolName string, schema *canon.Value) (string, error) {
	obj := canon.ObjectValue(
		canon.Member{Name: "tool_name", Value: canon.StringValue(toolName)},
		canon.Member{Name: "schema", Value: orEmptyObject(schema)},
	)
	b, err := d.Append(nil, &obj)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:ToolFingerprintLen], nil
}

// AsqavActionRecord reads {"action_type", "context"} and returns its action
// fingerprint.
func AsqavActionRecord(d canon.Dialect, record []byte) (string, error) {
	v, err := parseRecord(d, record)
	if err != nil {
		return "", err
	}
	at := v.Get("action_type")
	if at == nil {
		return "", fieldError("action_type", "is missing")
	}
	if at.Kind != canon.String {
		return "", fieldError("action_type", "must be a string, not "+at.Kind.String())
	}
	return AsqavAction(d, at, v.Get("context"))
}

// AsqavToolRecord reads {"tool_name", "schema"} and returns its
// tool_fingerprint.
func AsqavToolRecord(d canon.Dialect, record []byte) (string, error) {
	v, err := parseRecord(d, record)
	if err != nil {
		return "", err
	}
	name, err := stringField(&v, "tool_name")
	if err != nil {
		return "", err
	}
	schema := v.Get("schema")
	if schema != nil && schema.Kind != canon.Object && schema.Kind != canon.Null {
		return "", fieldError("schema", "must be an object, not "+schema.Kind.String())
	}
	return AsqavTool(d, name, schema)
}

func orEmptyObject(v *canon.Value) canon.Value {
	if v == nil || v.Kind == canon.Null {
		return canon.EmptyObject()
	}
	return *v
}
