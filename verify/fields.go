package verify

import (
	"strconv"

	"github.com/receiptverify/verify/verify/canon"
)

// str returns the string member name of obj, or "" when it is absent,
// null or not a string.
func str(obj *canon.Value, name string) string {
	if v := obj.Get(name); v != nil && v.Kind == canon.String {
		return v.Text
	}
	return ""
}

// firstStr returns the first of the named string members that is present.
func firstStr(obj *canon.Value, names ...string) string {
	for _, n := range names {
		if s := str(obj, n); s != "" {
			return s
		}
	}
	return ""
}

// requireStr fails the structure axis when the member is absent or not a
// string, and returns it.
func (c *check) requireStr(obj *canon.Value, where, name string) (string, bool) {
	v := obj.Get(name)
	switch {
	case v == nil || v.Kind == canon.Null:
		c.fail(AxisStructure, ReasonMissingField, where+name+" is missing")
		return "", false
	case v.Kind != canon.String:
		c.fail(AxisStructure, ReasonBadField, where+name+" must be a string, not "+v.Kind.String())
		return "", false
	}
	return v.Text, true
}

// integer returns an integer member, if it is one.
func integer(obj *canon.Value, name string) *int64 {
	v := obj.Get(name)
	if v == nil || v.Kind != canon.Number {
		return nil
	}
	n, err := strconv.ParseInt(v.Text, 10, 64)
	if err != nil {
		return nil
	}
	return &n
}

func formatInt(n int64) string { return strconv.FormatInt(n, 10) }
