package verify

import (
	"slices"
	"testing"
)

// axesOf builds Axes from a map, for tests.
func axesOf(m map[AxisName]Axis) Axes {
	var a Axes
	for name, ax := range m {
		a.Set(name, ax)
	}
	return a
}

// TestAxisOrderIsACopy: a caller that sorts the list AxisOrder gives it
// changes neither the next list nor the order in which a result reports
// its axes (a shared slice once made an expiry FAIL read as PASS).
func TestAxisOrderIsACopy(t *testing.T) {
	want := AxisOrder()
	mine := AxisOrder()
	slices.Sort(mine)
	if got := AxisOrder(); !slices.Equal(got, want) {
		t.Fatalf("AxisOrder after a caller sorted its copy: %v, want %v", got, want)
	}
	a := axesOf(map[AxisName]Axis{AxisExpiry: {Status: StatusFail, Reason: ReasonExpired}, AxisStructure: {Status: StatusPass}})
	if got := a.Of(AxisExpiry); got.Status != StatusFail {
		t.Fatalf("expiry after a sort: %+v", got)
	}
	var names []AxisName
	for name := range a.All() {
		names = append(names, name)
	}
	if !slices.Equal(names, []AxisName{AxisStructure, AxisExpiry}) {
		t.Fatalf("All() after a sort: %v", names)
	}
}
