package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestChainStartInEveryLoadOrder: which receipt of a chain is its first
// (the only one whose missing predecessor is a chain that starts before
// what was loaded, not chain_absent) does not depend on how the files
// are loaded into the audit database: one audit of both files in either
// argument order, or a night each in either order, store the verdicts of
// one verify receipts of both. The demo's chain of lines 12-23 split
// into lines 14-15 and 19-23 (the later night's first receipt a gap after
// the earlier one's); and agentreceipts' chain-tampered vector (four
// receipts issued in one second, its genesis first and the third's
// predecessor a receipt whose signature is broken) split after its
// second, where the genesis and the third tie on issue time; and the
// second and fourth receipts of its chain vector alone, tied on issue
// time and both naming a predecessor nobody holds: the fourth's line
// SHA-256 orders it first.
func TestChainStartInEveryLoadOrder(t *testing.T) {
	t.Parallel()
	lines := demoLines(t)
	vec := "../../testdata/interop/agentreceipts-go/v0.2.0-chain-tampered/"
	chain := "../../testdata/interop/agentreceipts-go/v0.2.0-chain/"
	data, err := os.ReadFile(vec + "receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	tampered := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	data, err = os.ReadFile(chain + "receipts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	chained := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, tt := range []struct {
		name  string
		trust []string
		a, b  []string
		want  string // the FAIL verdicts of one run, as file:line VERDICT [REASONS]
	}{
		{"demo-gap", demoArgs, lines[13:15], lines[18:23], "b.jsonl:1 FAIL [chain_absent]"},
		{"tied-genesis", []string{"--keys", vec + "did_map.json", "--at", "2026-12-06T12:00:00Z"}, tampered[:2], tampered[2:],
			"a.jsonl:2 FAIL [bad_signature]\nb.jsonl:1 FAIL [chain_absent]"},
		{"tied-starts", []string{"--keys", chain + "did_map.json", "--at", "2026-12-06T12:00:00Z"}, chained[1:2], chained[3:4],
			"a.jsonl:1 FAIL [chain_absent]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
			writeFile(t, a, []byte(strings.Join(tt.a, "")))
			writeFile(t, b, []byte(strings.TrimSuffix(strings.Join(tt.b, ""), "\n")+"\n"))
			_, stdout, stderr := runVerify(t, append(append([]string{"receipts", "-f", "jsonl"}, tt.trust...), a, b)...)
			var one []string
			for _, f := range []string{a, b} {
				for _, v := range strings.Split(sourceVerdicts(t, stdout, f), "\n") {
					if !strings.Contains(v, " PASS ") {
						one = append(one, filepath.Base(f)+":"+v)
					}
				}
			}
			if got := strings.Join(one, "\n"); got != tt.want {
				t.Fatalf("one run: FAIL verdicts\n%s\nwant\n%s\nstderr: %s", got, tt.want, stderr)
			}
			for i, loads := range [][][]string{{{a, b}}, {{b, a}}, {{a}, {b}}, {{b}, {a}}} {
				db := filepath.Join(dir, fmt.Sprint("audit-", i, ".duckdb"))
				for _, files := range loads {
					args := append(append([]string{"audit", "-q", "--no-fail", "--db", db, "--out", filepath.Join(dir, fmt.Sprint("reports-", i))}, tt.trust...), files...)
					if code, stdout, stderr := runVerify(t, args...); code != exitOK {
						t.Fatalf("%v: exit %d\n%s%s", files, code, stdout, stderr)
					}
				}
				var got []string
				for _, row := range strings.Split(strings.TrimSpace(queryOrderRows(t, db, "SELECT source, line, verdict, reasons FROM receipts WHERE verdict <> 'PASS' ORDER BY source, line")), "\n") {
					if row != "" {
						f := strings.SplitN(row, "\t", 4)
						got = append(got, filepath.Base(f[0])+":"+f[1]+" "+f[2]+" "+f[3])
					}
				}
				slices.Sort(got)
				if g := strings.Join(got, "\n"); g != tt.want {
					t.Errorf("loads %v: the database's FAIL verdicts\n%s\nwant (one run over both files)\n%s", loads, g, tt.want)
				}
			}
		})
	}
}
