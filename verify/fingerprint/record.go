package fingerprint

import (
	"fmt"

	"github.com/receiptverify/verify/verify/canon"
)

// FieldError is a record whose named field is missing or of the wrong type.
type FieldError struct {
	Field  string
	Detail string
}

func (e *FieldError) Error() string { return fmt.Sprintf("field %q %s", e.Field, e.Detail) }

func fieldError(field, detail string) error { return &FieldError{Field: field, Detail: detail} }

// parseRecord parses one record with the dialect's input rules and checks
// that it is an object.
func parseRecord(d canon.Dialect, record []byte) (canon.Value, error) {
	v, err := d.Parse(record)
	if err != nil {
		return canon.Value{}, err
	}
	if v.Kind != canon.Object {
		return canon.Value{}, fmt.Errorf("record must be a JSON object, not %s", v.Kind)
	}
	return v, nil
}

// stringField returns the string member called name.
func stringField(v *canon.Value, name string) (string, error) {
	f := v.Get(name)
	if f == nil {
		return "", fieldError(name, "is missing")
	}
	if f.Kind != canon.String {
		return "", fieldError(name, "must be a string, not "+f.Kind.String())
	}
	return f.Text, nil
}
