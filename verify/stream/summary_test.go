package stream

import (
	"reflect"
	"testing"

	"github.com/receiptverify/verify/verify"
)

// TestSummaryAddEveryCount: Add sums every count of a Summary, a field
// added later included (a summary added field by field in three places
// once lost the duplicates count in two), and the reasons.
func TestSummaryAddEveryCount(t *testing.T) {
	var o Summary
	v := reflect.ValueOf(&o).Elem()
	for i := range v.NumField() {
		switch f := v.Field(i); f.Kind() {
		case reflect.Int, reflect.Int64:
			f.SetInt(int64(i + 1))
		case reflect.Map:
		default:
			t.Fatalf("Summary.%s: a %s; Add and this test know ints and the reasons", v.Type().Field(i).Name, f.Kind())
		}
	}
	o.Reasons = map[verify.Reason]int64{verify.ReasonBadSignature: 3}
	var s Summary
	s.Add(o)
	s.Add(o)
	got := reflect.ValueOf(s)
	for i := range got.NumField() {
		if f := got.Field(i); f.Kind() != reflect.Map && f.Int() != 2*int64(i+1) {
			t.Errorf("Summary.%s: %d after adding %d twice", got.Type().Field(i).Name, f.Int(), i+1)
		}
	}
	if s.Reasons[verify.ReasonBadSignature] != 6 || len(s.Reasons) != 1 {
		t.Errorf("reasons: %v", s.Reasons)
	}
}
