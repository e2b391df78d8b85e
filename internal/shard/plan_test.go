package shard

import (
	"fmt"
	"slices"
	"testing"
)

// TestNewPlanShards: consecutive inputs, balanced by size, every shard at
// least one input, and the plan checks as it reads.
func TestNewPlanShards(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sizes  []int64
		shards int64
		want   []int64
	}{
		{[]int64{10, 10, 10, 10}, 4, []int64{0, 1, 2, 3}},
		{[]int64{10, 10, 10, 10}, 2, []int64{0, 0, 1, 1}},
		{[]int64{100, 1, 1, 1}, 2, []int64{0, 1, 1, 1}},
		{[]int64{1, 1, 1, 100}, 2, []int64{0, 0, 0, 1}},
		{[]int64{0, 0, 0}, 3, []int64{0, 1, 2}},
		{[]int64{5}, 1, []int64{0}},
		{[]int64{1, 1, 1, 1, 1, 1}, 4, []int64{0, 0, 1, 2, 2, 3}},
	} {
		var ins []Input
		for i, s := range c.sizes {
			ins = append(ins, Input{Path: fmt.Sprint("f", i), Size: s})
		}
		p, err := NewPlan("", Trust{At: "2026-12-01T00:00:00Z"}, ins, c.shards)
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, in := range p.Inputs {
			got = append(got, in.Shard)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("sizes %v in %d shards: %v, want %v", c.sizes, c.shards, got, c.want)
		}
		if err := p.check(); err != nil {
			t.Errorf("sizes %v in %d shards: %v", c.sizes, c.shards, err)
		}
	}
	ins := []Input{{Path: "a", Size: 1}, {Path: "b", Size: 1}}
	for _, shards := range []int64{0, 3} {
		if _, err := NewPlan("", Trust{At: "2026-12-01T00:00:00Z"}, ins, shards); err == nil {
			t.Errorf("%d shards of 2 inputs: no error", shards)
		}
	}
	if _, err := NewPlan("", Trust{}, ins, 1); err == nil {
		t.Error("no --at: no error")
	}
}
