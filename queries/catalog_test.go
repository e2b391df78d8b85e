package queries

import (
	"slices"
	"strings"
	"testing"
)

func TestUnknownQuery(t *testing.T) {
	t.Parallel()
	_, err := Lookup("nope")
	if _, ok := err.(*unknownQueryError); !ok {
		t.Fatalf("got %v", err)
	}
	if !strings.Contains(err.Error(), "collisions") {
		t.Errorf("error does not list the queries: %v", err)
	}
}

// TestFindingsCopy: the finding names are the caller's to change.
func TestFindingsCopy(t *testing.T) {
	t.Parallel()
	f := Findings()
	slices.Reverse(f)
	if Findings()[0] != "collisions" {
		t.Fatal("a caller's change reached the finding names")
	}
	for _, name := range Findings() {
		if _, err := Lookup(name); err != nil {
			t.Error(err)
		}
	}
}
