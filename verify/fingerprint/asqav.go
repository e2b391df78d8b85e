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
func AsqavAction(d *canon.Dialect, actionType, context *canon.Value) (string, error) {
	if actionType == nil {
		return "", fmt.Errorf("action_type is missing")
	}
	obj := canon.ObjectValue(
		canon.Member{Name: "action_type", Value: *actionType},
		canon.Member{Name: "context", Value: orEmptyObject(context)},
	)
	b, err := d.Append(nil, &obj)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}

// PayloadDigest is the Asqav payload_digest: the SHA-256 and byte length of
// the canonical context.
type PayloadDigest struct {
	Hash string `json:"hash"`
	Size int    `json:"size"`
}

// AsqavPayloadDigest computes the payload_digest of context (missing or
// null counts as {}).
func AsqavPayloadDigest(d *canon.Dialect, context *canon.Value) (PayloadDigest, error) {
	ctx := orEmptyObject(context)
	b, err := d.Append(nil, &ctx)
	if err != nil {
		return PayloadDigest{}, err
	}
	sum := sha256.Sum256(b)
	return PayloadDigest{Hash: hex.EncodeToString(sum[:]), Size: len(b)}, nil
}

// ToolFingerprintLen is the length of an Asqav tool_fingerprint in hex
// characters (128 bits).
const ToolFingerprintLen = 32

// AsqavTool returns the Asqav tool_fingerprint: the first 32 lowercase hex
// characters of SHA-256 over the canonical {"tool_name", "schema"}. A
// missing or null schema is hashed as {}.
func AsqavTool(d *canon.Dialect, toolName string, schema *canon.Value) (string, error) {
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
func AsqavActionRecord(d *canon.Dialect, record []byte) (string, error) {
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
func AsqavToolRecord(d *canon.Dialect, record []byte) (string, error) {
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
