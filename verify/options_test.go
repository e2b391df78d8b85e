package verify

import (
	"errors"
	"testing"
	"time"

	"github.com/receiptverify/verify/verify/canon"
)

// TestOptionErrors: an option New refuses is an *OptionError naming it,
// wrapping the cause (a predecessor that is no JSON: its *canon.Error).
func TestOptionErrors(t *testing.T) {
	var oe *OptionError
	if _, err := New(nil, WithMaxSkew(-time.Second)); !errors.As(err, &oe) || oe.Option != "WithMaxSkew" {
		t.Errorf("WithMaxSkew(-1s): %v", err)
	}
	_, err := New(nil, WithPredecessor([]byte(`{"a":`)))
	var ce *canon.Error
	if !errors.As(err, &oe) || oe.Option != "WithPredecessor" || !errors.As(err, &ce) || ce.Reason != canon.ReasonSyntax {
		t.Errorf("WithPredecessor of no JSON: %v", err)
	}
	if _, err := New(nil, WithPredecessor([]byte(`{"a":1}`))); !errors.As(err, &oe) || oe.Option != "WithPredecessor" {
		t.Errorf("WithPredecessor of no receipt: %v", err)
	}
}

// TestWithMaxSkew: a receipt issued 10 minutes after the judging instant
// fails clock_skew at the default 5 minutes and passes the skew axis with
// WithMaxSkew(15m).
func TestWithMaxSkew(t *testing.T) {
	raw := readFile(t, "../testdata/receipts/asqav-01-genesis-permit/receipt.json")
	probe, _ := New(nil)
	res, _ := probe.Verify(raw)
	issued, ok := res.IssuedTime()
	if !ok {
		t.Fatal("the receipt has no issue time")
	}
	at := issued.Add(-10 * time.Minute)
	for _, c := range []struct {
		opts []Option
		want Status
	}{
		{[]Option{WithTime(at)}, StatusFail},
		{[]Option{WithTime(at), WithMaxSkew(15 * time.Minute)}, StatusPass},
	} {
		v, err := New(nil, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := v.Verify(raw)
		if ax := res.Axes.Of(AxisSkew); ax.Status != c.want {
			t.Errorf("%d options: skew %+v, want %s", len(c.opts), ax, c.want)
		}
	}
}
