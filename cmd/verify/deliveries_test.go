package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// reserialise writes a receipt line again as an archiver might: members
// in another order (encoding/json sorts them) and every non-ASCII
// character as a \u escape. The signed bytes do not change.
func reserialise(t *testing.T, line string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, r := range string(b) {
		switch {
		case r < 0x80:
			out.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return out.String() + "\n"
}

// TestArchiveDaysAndDeliveries: a clean archive whose sessions span days,
// through the command. Each day's file verified alone exits 0, the
// chains begun the day before counted; a receipt deleted from the middle
// of a chain fails its successor, within a file and, audited a night at a
// time, at the end of a day. Every line delivered twice (the second
// time re-serialised), in one file or in a later load: every receipt
// PASSes, the second deliveries are reported as duplicates (low), and
// verify receipts and verify audit --fail-on high exit 0.
func TestArchiveDaysAndDeliveries(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	dir := t.TempDir()
	start := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	cfg := receiptgen.Config{Seed: 3, N: 3000, Days: 3, Start: start, Agents: 2, SessionsPerAgent: 1, Algs: receiptgen.Ed25519Only()}
	if _, err := receiptgen.Generate(cfg, receiptgen.DirSink(dir)); err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys", "jwks.json")
	at := start.AddDate(0, 0, 5).Format(time.RFC3339)
	data, err := os.ReadFile(filepath.Join(dir, "receipts.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(data), "\n"), "\n")
	lines[len(lines)-1] += "\n"
	issued := regexp.MustCompile(`"issued_at":"(\d{4}-\d{2}-\d{2})T`)
	var days []string
	byDay := map[string][]string{}
	for _, l := range lines {
		d := issued.FindStringSubmatch(l)[1]
		if byDay[d] == nil {
			days = append(days, d)
		}
		byDay[d] = append(byDay[d], l)
	}
	if len(days) != 3 {
		t.Fatalf("%d days", len(days))
	}

	outside := 0
	for _, d := range days {
		p := filepath.Join(dir, d+".jsonl")
		writeFile(t, p, []byte(strings.Join(byDay[d], "")))
		code, stdout, stderr := runVerify(t, "receipts", "--keys", keys, "--at", at, p)
		if code != exitOK || strings.Contains(stdout, "FAIL") {
			t.Errorf("%s alone: exit %d\n%s%s", d, code, stdout, stderr)
		}
		if strings.Contains(stdout, "summary: chains starting before the input: ") {
			outside++
			// Loaded alone, the load's line says so too.
			code, _, stderr := runVerify(t, "load", "--db", filepath.Join(dir, d+".duckdb"), "--keys", keys, "--at", at, p)
			if code != exitOK || !strings.Contains(stderr, " chain(s) starting before what is loaded, their first link not checked") {
				t.Errorf("%s loaded alone: exit %d\n%s", d, code, stderr)
			}
		}
	}
	if outside == 0 {
		t.Error("no day file has a chain begun the day before: the test shows nothing")
	}

	// The middle receipt of the second day deleted: its successor fails,
	// nothing else.
	day := byDay[days[1]]
	mid := len(day) / 2
	var succ struct {
		Payload struct {
			Prev string `json:"previousReceiptHash"`
		} `json:"payload"`
	}
	if err := json.Unmarshal([]byte(day[mid+1]), &succ); err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.jsonl")
	writeFile(t, cut, []byte(strings.Join(day[:mid], "")+strings.Join(day[mid+1:], "")))
	code, stdout, _ := runVerify(t, "receipts", "--keys", keys, "--at", at, cut)
	want := fmt.Sprintf("cut.jsonl:%d: FAIL asqav-native: chain fail chain_absent (predecessor %s ", mid+1, succ.Payload.Prev)
	if code != exitRejected || !strings.Contains(stdout, want) || strings.Count(stdout, "FAIL") != 1 {
		t.Errorf("a receipt deleted: exit %d, want %d and %q\n%s", code, exitRejected, want, stdout)
	}

	// Audited a day at a time into one database: clean, every night exits
	// 0; with the last receipt of the first day deleted, the second night
	// fails its successor, as one audit of both days would.
	nightly := func(db string, files ...string) []int {
		t.Helper()
		var codes []int
		for i, f := range files {
			code, stdout, stderr := runVerify(t, "audit", "-q", "--db", db, "--out", filepath.Join(dir, "nightly"), "--keys", keys, "--at", at, "--fail-on", "high", f)
			codes = append(codes, code)
			t.Logf("night %d: exit %d\n%s%s", i+1, code, stdout, stderr)
		}
		return codes
	}
	var dayFiles []string
	for _, d := range days {
		dayFiles = append(dayFiles, filepath.Join(dir, d+".jsonl"))
	}
	if codes := nightly(filepath.Join(dir, "nightly.duckdb"), dayFiles...); fmt.Sprint(codes) != "[0 0 0]" {
		t.Errorf("clean days audited a night at a time: exits %v, want 0 each", codes)
	}
	first := byDay[days[0]]
	short := filepath.Join(dir, "short-"+days[0]+".jsonl")
	writeFile(t, short, []byte(strings.Join(first[:len(first)-1], "")))
	gapDB := filepath.Join(dir, "gap.duckdb")
	if codes := nightly(gapDB, short, dayFiles[1]); fmt.Sprint(codes) != fmt.Sprint([]int{exitOK, exitRejected}) {
		t.Errorf("the first day's last receipt deleted: exits %v, want [0 1]", codes)
	}
	if _, stdout, _ := runVerify(t, "query", "--db", gapDB, "--format", "csv", "failures"); strings.Count(stdout, "chain_absent") != 1 {
		t.Errorf("failures after the gap: want one chain_absent\n%s", stdout)
	}
	// Out of order, the last day first: no gap, every night exits 0.
	if codes := nightly(filepath.Join(dir, "backwards.duckdb"), dayFiles[2], dayFiles[1], dayFiles[0]); fmt.Sprint(codes) != "[0 0 0]" {
		t.Errorf("clean days audited last first: exits %v, want 0 each", codes)
	}

	// Every line of the first 600 twice, the second re-serialised: a
	// prefix of the archive in time order, so every link's predecessor is
	// in it.
	delivered := lines[:600]
	var twice, again strings.Builder
	for _, l := range delivered {
		r := reserialise(t, l)
		if r == l {
			t.Fatalf("not re-serialised: %s", l)
		}
		twice.WriteString(l + r)
		again.WriteString(r)
	}
	twicePath := filepath.Join(dir, "twice.jsonl")
	writeFile(t, twicePath, []byte(twice.String()))
	code, stdout, stderr := runVerify(t, "receipts", "--keys", keys, "--at", at, twicePath)
	n := len(delivered)
	if code != exitOK || !strings.Contains(stdout, fmt.Sprintf("(%d pass, 0 fail, 0 incomplete)", 2*n)) ||
		!strings.Contains(stdout, fmt.Sprintf("summary: duplicates: %d ", n)) {
		t.Errorf("delivered twice: exit %d\n%s%s", code, stdout, stderr)
	}
	replays := func(db string) {
		t.Helper()
		code, stdout, stderr := runVerify(t, "query", "--db", db, "--format", "csv", "replays")
		rows := strings.Split(strings.TrimSpace(stdout), "\n")[1:]
		low := 0
		for _, r := range rows {
			if strings.HasPrefix(r, "replays,low,") && strings.Contains(r, ",duplicate,") {
				low++
			}
		}
		if code != exitOK || len(rows) != n || low != n {
			t.Errorf("%s: exit %d, %d replays rows, %d of them low duplicates, want %d\n%.2000s%s", db, code, len(rows), low, n, stdout, stderr)
		}
	}
	db := filepath.Join(dir, "twice.duckdb")
	code, stdout, stderr = runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report"), "--keys", keys, "--at", at, "--fail-on", "high", twicePath)
	if code != exitOK || !strings.Contains(stdout, fmt.Sprintf("(%d pass, 0 fail, 0 incomplete)", 2*n)) ||
		!strings.Contains(stderr, fmt.Sprintf(": %d accepted, 0 rejected; %d receipt(s) delivered again, judged as their first delivery\n", 2*n, n)) {
		t.Errorf("audit, delivered twice in one file: exit %d\n%s%s", code, stdout, stderr)
	}
	replays(db)

	// The second deliveries in a later load.
	db = filepath.Join(dir, "loads.duckdb")
	loaded := filepath.Join(dir, "delivered.jsonl")
	writeFile(t, loaded, []byte(strings.Join(delivered, "")))
	if code, stdout, stderr := runVerify(t, "load", "--db", db, "--keys", keys, "--at", at, loaded); code != exitOK {
		t.Fatalf("first load: exit %d\n%s%s", code, stdout, stderr)
	}
	againPath := filepath.Join(dir, "again.jsonl")
	writeFile(t, againPath, []byte(again.String()))
	code, stdout, stderr = runVerify(t, "audit", "--db", db, "--out", filepath.Join(dir, "report2"), "--keys", keys, "--at", at, "--fail-on", "high", againPath)
	if code != exitOK || !bytes.Contains([]byte(stdout), []byte(fmt.Sprintf("(%d pass, 0 fail, 0 incomplete)", n))) {
		t.Errorf("audit, delivered again in a later load: exit %d\n%s%s", code, stdout, stderr)
	}
	replays(db)
}
