package analytics

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/testenv"
)

// TestFlaggedLinesBeyondMemoryLimit loads a file whose receipts that
// PASS and keep their line (flaggedWithoutRaw) carry more line text than
// DuckDB's memory limit: 10,000 receipts, each padded with an unsigned
// member of 16 KiB and delivered again unpadded, so that the two share
// their action_id, nonce and signature and the first, a PASS, gets its
// line after the file's rows are stored: 170 MB of lines under a 256MB
// limit. Storing them by UPDATE held them all in DuckDB's memory, which
// ran out (as it did for the 500 MB of such lines of 3M ML-DSA-65
// receipts under 512MB).
func TestFlaggedLinesBeyondMemoryLimit(t *testing.T) {
	testenv.Long(t)
	t.Parallel()
	const n, pad, limit = 10_000, 16 << 10, "256MB"
	c := genCorpus(t, "", receiptgen.Config{Seed: 3, N: n, Rate: 0, Days: 1})
	src, err := os.ReadFile(c.receipts)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "padded.jsonl")
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	padding := `,"padding":"` + strings.Repeat("p", pad) + `"}` + "\n"
	var lines int
	for line := range bytes.Lines(src) {
		padded := append(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("}")), padding...)
		w.Write(padded)
		w.Write(line)
		lines += 2
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	out.Close()

	db := openTestDB(t)
	if err := db.SetLimits(Limits{Memory: limit}); err != nil {
		t.Fatal(err)
	}
	sum := mustLoad(t, db, c.v, c.schemas, path)
	if f := sum.Files[0]; f.Err != nil || f.Accepted != int64(lines) {
		t.Fatalf("load: %+v", f)
	}
	var kept, pass, padded int64
	if err := db.SQL().QueryRow(`SELECT count(raw), count(*) FILTER (verdict = 'PASS'),
		count(*) FILTER (raw LIKE '%"padding":"p%' AND length(raw) > $1) FROM receipts`, pad).Scan(&kept, &pass, &padded); err != nil {
		t.Fatal(err)
	}
	if kept != int64(lines) || padded != kept/2 || pass == 0 {
		t.Errorf("receipts: %d lines kept, %d padded, %d PASS, of %d", kept, padded, pass, lines)
	}
}

// TestSettingBytes reads sizes as DuckDB shows its memory_limit; one it
// cannot read chooses the way that stays within the limit.
func TestSettingBytes(t *testing.T) {
	for s, want := range map[string]int64{"488.2 MiB": 511914803, "2.0 GiB": 2 << 30, "97.6 KiB": 99942, "0 bytes": 0, "2.7 TiB": 2968681394995} {
		if got, ok := settingBytes(s); !ok || got != want {
			t.Errorf("settingBytes(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "512MB", "-1 MiB", "1.5 XiB", "MiB"} {
		if n, ok := settingBytes(s); ok {
			t.Errorf("settingBytes(%q) = %d, want not read", s, n)
		}
	}
	db := openTestDB(t)
	for limit, want := range map[string]int64{"512MB": 511915212, "1GiB": 1 << 30} {
		if err := db.SetLimits(Limits{Memory: limit}); err != nil {
			t.Fatal(err)
		}
		var shown string
		if err := db.SQL().QueryRow("SELECT current_setting('memory_limit')").Scan(&shown); err != nil {
			t.Fatal(err)
		}
		if got, ok := settingBytes(shown); !ok || got < want*99/100 || got > want*101/100 {
			t.Errorf("memory limit %s, shown %q: read %d, %v", limit, shown, got, ok)
		}
	}
}
