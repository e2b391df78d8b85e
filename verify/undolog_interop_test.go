package verify

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestUndoLogInteropProfiles: each row the TypeScript SDK wrote
// (testdata/interop/undolog-effect) is reported with the profile that
// reproduces it, undolog-t2 where only the SDK's own form does.
func TestUndoLogInteropProfiles(t *testing.T) {
	t.Parallel()
	dirs, _ := filepath.Glob("../testdata/interop/undolog-effect/*/expected.json")
	if len(dirs) == 0 {
		t.Fatal("no UndoLog interop vectors")
	}
	t2 := 0
	for _, exp := range dirs {
		var want struct {
			Verdict string `json:"verdict"`
			Profile string `json:"undolog_profile"`
		}
		if err := json.Unmarshal(readFile(t, exp), &want); err != nil {
			t.Fatal(err)
		}
		v, err := New(nil)
		if err != nil {
			t.Fatal(err)
		}
		res, _ := v.Verify(readFile(t, filepath.Join(filepath.Dir(exp), "receipt.json")))
		if string(res.Verdict) != want.Verdict || res.Fingerprints.UndoLogProfile != want.Profile {
			t.Errorf("%s: %s with profile %q, want %s with %q", exp, res.Verdict, res.Fingerprints.UndoLogProfile, want.Verdict, want.Profile)
		}
		if want.Profile == "undolog-t2" {
			t2++
		}
	}
	if t2 == 0 {
		t.Error("no vector needs the TypeScript profile")
	}
}
