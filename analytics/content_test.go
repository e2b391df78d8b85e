package analytics

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/testkit/receiptgen"
	"github.com/receiptverify/verify/internal/testkit/textdiff"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/stream"
)

// verdicts is every receipt's file path, line, verdict and reasons.
func verdicts(t *testing.T, db *DB) string {
	t.Helper()
	rows, err := db.SQL().Query(`SELECT source, line, verdict, array_to_string(reasons, ',') FROM receipts ORDER BY source, line`)
	if err != nil {
		t.Fatal(err)
	}
	return rowsText(t, rows)
}

func loadOne(t *testing.T, db *DB, c *corpus, in Input, opts LoadOptions) FileSummary {
	t.Helper()
	if opts.TempDir == "" {
		opts.TempDir = t.TempDir()
	}
	sum, err := db.Load(context.Background(), c.v, []Input{in}, opts)
	if err != nil {
		t.Fatalf("Load %s: %v", in.Name, err)
	}
	return sum.Files[0]
}

// TestGrownFile: a JSON Lines file loaded, then grown (a producer appends
// to its log), adds only its new lines, judged against what is stored, as
// one load of the whole file judges them; the same content under another
// name, gzipped, or cut short again adds nothing.
func TestGrownFile(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 31, N: 300, Rate: 0.12, Days: 2})
	lines := readLines(t, c.receipts)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	db := openTestDB(t)

	writeLines(t, log, lines[:100])
	first := loadOne(t, db, c, fileInput(log), LoadOptions{})
	writeLines(t, log, lines[:220])
	grown := loadOne(t, db, c, fileInput(log), LoadOptions{})
	if grown.AlreadyLoaded || grown.FirstLine != 101 || grown.Extends != first.SHA256 || grown.Accepted != 120 || grown.Lines != 120 {
		t.Fatalf("grown file: %+v, want lines 101 to 220 added, extending %s", grown, first.SHA256)
	}
	// Its last line without a newline, then completed and grown again.
	data := bytes.Join(lines, []byte("\n")) // no newline at the end
	cut := len(bytes.Join(lines[:250], []byte("\n")))
	if err := os.WriteFile(log, data[:cut], 0o644); err != nil {
		t.Fatal(err)
	}
	if f := loadOne(t, db, c, fileInput(log), LoadOptions{}); f.FirstLine != 221 || f.Accepted != 30 {
		t.Fatalf("grown to an unterminated line: %+v", f)
	}
	if err := os.WriteFile(log, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	if f := loadOne(t, db, c, fileInput(log), LoadOptions{}); f.FirstLine != 251 || f.Accepted != int64(len(lines)-250) {
		t.Fatalf("grown past an unterminated line: %+v", f)
	}

	whole := openTestDB(t)
	loadOne(t, whole, c, fileInput(log), LoadOptions{})
	if got, want := verdicts(t, db), verdicts(t, whole); got != want {
		t.Errorf("loaded as it grew, the file is judged otherwise than loaded whole:\n%s", textdiff.Lines(want, got))
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts"); n != int64(len(lines)) {
		t.Errorf("%d receipts rows, want %d", n, len(lines))
	}

	before := dump(t, db)
	again := filepath.Join(dir, "renamed.jsonl")
	writeLines(t, again, lines)
	older := filepath.Join(dir, "older-copy.jsonl")
	writeLines(t, older, lines[:160])
	for _, in := range []Input{fileInput(log), fileInput(again), gzipInput(t, again, filepath.Join(dir, "recompressed.jsonl.gz")), fileInput(older)} {
		if f := loadOne(t, db, c, in, LoadOptions{}); !f.AlreadyLoaded || f.Err != nil {
			t.Errorf("%s: %+v, want already loaded", in.Name, f)
		}
	}
	if after := dump(t, db); after != before {
		t.Errorf("loading known content changed the database:\n%s", textdiff.Lines(before, after))
	}
}

// TestChangedFile: a file whose already-loaded part has changed is refused,
// naming the first line that differs, and nothing of it is loaded; a
// receipt that truly appears twice, in another file, is the same receipt
// delivered again, not a replay: its line, stored before, is counted as
// re-delivered and not stored twice; another receipt reusing its nonce is
// a replay.
func TestChangedFile(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 32, N: 120, Days: 1, Rate: 0.2})
	lines := readLines(t, c.receipts)
	replayed := plantedReplay(t, c.dir, func(replay, original int) bool { return original < 80 && replay >= 80 && replay != 90 })
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	db := openTestDB(t)
	writeLines(t, log, lines[:80])
	loadOne(t, db, c, fileInput(log), LoadOptions{})
	before := dump(t, db)

	changed := append(append([][]byte{}, lines[:80]...), lines[80:]...)
	changed[41] = lines[100] // line 42
	writeLines(t, log, changed)
	f := loadOne(t, db, c, fileInput(log), LoadOptions{})
	var ce *dberr.ChangedError
	if !errors.As(f.Err, &ce) || ce.Line != 42 {
		t.Fatalf("changed file: %+v, want a dberr.ChangedError at line 42", f)
	}
	if !strings.Contains(f.Err.Error(), "line 42") {
		t.Errorf("error %q does not name the line", f.Err)
	}
	if after := dump(t, db); after != before {
		t.Errorf("a refused file changed the database:\n%s", textdiff.Lines(before, after))
	}

	// Another file that begins with the same receipts is not a growth of
	// the stored one: its new lines are loaded, its copy of a stored line
	// is counted as re-delivered and not stored again, and a receipt
	// reusing a stored nonce is a replay.
	other := filepath.Join(dir, "other.jsonl")
	writeLines(t, other, [][]byte{lines[0], lines[90], lines[replayed]})
	if f := loadOne(t, db, c, fileInput(other), LoadOptions{}); f.Err != nil || f.Accepted != 2 || f.Redelivered != 1 {
		t.Fatalf("other file: %+v", f)
	}
	var stored []int64
	rows, err := db.SQL().Query("SELECT line FROM receipts WHERE source = ? ORDER BY line", other)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		stored = append(stored, n)
	}
	if len(stored) != 2 || stored[0] != 2 || stored[1] != 3 {
		t.Errorf("lines of the other file stored: %v, want [2 3]", stored)
	}
	reasonsAt := func(line int) string {
		t.Helper()
		var reasons string
		if err := db.SQL().QueryRow("SELECT array_to_string(reasons, ',') FROM receipts WHERE source = ? AND line = ?", other, line).Scan(&reasons); err != nil {
			t.Fatal(err)
		}
		return reasons
	}
	if r := reasonsAt(3); !strings.Contains(r, string(verify.ReasonNonceReplay)) {
		t.Errorf("another receipt with a stored nonce: reasons %q, want nonce_replay", r)
	}
}

// plantedReplay is the index of a receipt the corpus in dir planted as a
// replay of an earlier one's nonce (a genuine receipt, signed with it:
// one changed after signing would be a claim, which replays nothing),
// the first for which ok holds of its index and the original's.
func plantedReplay(t *testing.T, dir string, ok func(replay, original int) bool) int {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, "truth.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		var r receiptgen.Record
		if err := json.Unmarshal(l, &r); err != nil {
			t.Fatal(err)
		}
		var original int
		if r.Kind != receiptgen.KindReplayedNonce {
			continue
		}
		if _, err := fmt.Sscanf(r.Note, "reuses the nonce of line %d", &original); err != nil {
			t.Fatalf("truth note %q: %v", r.Note, err)
		}
		if ok(r.Line-1, original-1) {
			return r.Line - 1
		}
	}
	t.Fatal("no planted replay fits")
	return 0
}

// TestLoadClockAndIssuedAt: a receipt is filed under the day its issued_at
// names in every spelling the verifier reads, and --at (LoadOptions.At)
// is the load's only clock: loaded_at and the day of an undated receipt.
func TestLoadClockAndIssuedAt(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 33, N: 10, Days: 1})
	line := string(readLines(t, c.receipts)[0])
	i := strings.Index(line, `"issued_at":"`) + len(`"issued_at":"`)
	orig := line[i : i+len("2026-11-01T00:00:00.000000Z")]
	spellings := map[string]string{ // as written: the instant, UTC
		"2026-11-01T23:10:03+0000":      "2026-11-01T23:10:03Z",
		"2026-11-01T23:10:03.5+00":      "2026-11-01T23:10:03.5Z",
		"2026-11-01 23:10:03Z":          "2026-11-01T23:10:03Z",
		"2026-11-01T23:10":              "2026-11-01T23:10:00Z",
		"2026-11-01":                    "2026-11-01T00:00:00Z",
		"2026-11-02T01:10:03+02:00":     "2026-11-01T23:10:03Z",
		"2026-11-01T23:10:03.123456789": "2026-11-01T23:10:03.123456Z",
	}
	var out []string
	var order []string
	for s := range spellings {
		out = append(out, strings.Replace(line, orig, s, 1))
		order = append(order, s)
	}
	out = append(out, strings.Replace(line, orig, "not a time", 1))
	path := filepath.Join(t.TempDir(), "spellings.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 12, 20, 6, 0, 0, 0, time.UTC)
	db := openTestDB(t)
	loadOne(t, db, c, fileInput(path), LoadOptions{At: at})
	for n, s := range order {
		var issued, day time.Time
		if err := db.SQL().QueryRow("SELECT issued_at, day FROM receipts WHERE line = ?", n+1).Scan(&issued, &day); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if got := issued.UTC().Format(time.RFC3339Nano); got != spellings[s] || day.Format(time.DateOnly) != "2026-11-01" {
			t.Errorf("issued_at %q: stored %s on %s, want %s on 2026-11-01", s, got, day.Format(time.DateOnly), spellings[s])
		}
	}
	var loadedAt, undated time.Time
	if err := db.SQL().QueryRow("SELECT f.loaded_at, r.day FROM files f, receipts r WHERE r.line = ?", len(out)).Scan(&loadedAt, &undated); err != nil {
		t.Fatal(err)
	}
	if !loadedAt.Equal(at) || undated.Format(time.DateOnly) != "2026-12-20" {
		t.Errorf("loaded_at %s, undated receipt on %s: want the --at instant %s", loadedAt, undated, at)
	}
}

// TestTrustProvenance: each load records its trust material and every row
// points to it; a known file met with other material is reported and left
// as it is, and Reverify verifies its stored receipts again, keeping their
// chain and nonce judgments, to the verdicts a fresh load gives.
func TestTrustProvenance(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 34, N: 200, Rate: 0.15, Days: 2})
	at := testStart.AddDate(0, 0, 33)
	noKeys, err := keys.NewDirectory()
	if err != nil {
		t.Fatal(err)
	}
	blind, err := verify.New(noKeys, verify.WithTime(at), verify.WithSchemas(c.schemas))
	if err != nil {
		t.Fatal(err)
	}
	jwks, err := os.ReadFile(filepath.Join(c.dir, "keys", "jwks.json"))
	if err != nil {
		t.Fatal(err)
	}
	without := Trust{At: at, ToolVersion: "test"}
	with := Trust{Keys: []TrustFile{TrustFileOf("keys/jwks.json", jwks)}, At: at, ToolVersion: "test"}
	ctx := context.Background()
	load := func(db *DB, v *verify.Verifier, tr Trust, reverify bool) LoadSummary {
		t.Helper()
		sum, err := db.Load(ctx, v, []Input{fileInput(c.receipts)}, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), At: at, Trust: tr, Reverify: reverify})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}

	db := openTestDB(t)
	first := load(db, blind, without, false)
	if first.Trust != without.ID() {
		t.Fatalf("load trust %s, want %s", first.Trust, without.ID())
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE trust_sha256 = ? AND verdict <> 'PASS'", without.ID()); n != 200 {
		t.Fatalf("%d receipts not PASS without keys pointing to the load's trust material, want 200", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM files f JOIN trust t USING (trust_sha256) WHERE t.key_files = '[]' AND t.judged_at IS NOT NULL"); n != 1 {
		t.Fatalf("%d files rows pointing to their trust row", n)
	}
	before := dump(t, db)

	second := load(db, c.v, with, false)
	if f := second.Files[0]; !f.AlreadyLoaded || !f.TrustChanged || f.Reverified {
		t.Fatalf("known file with other keys: %+v, want already loaded, trust changed", f)
	}
	// Only the trust table, which gains the new material, may differ.
	stored := func(d string) string { return d[:strings.Index(d, "== trust\n")] }
	if after := dump(t, db); stored(after) != stored(before) {
		t.Errorf("a warned load changed the stored rows:\n%s", textdiff.Lines(before, after))
	}

	// The load stored the key file's bytes: the database alone has them.
	if b, ok, err := db.TrustContent(ctx, with.Keys[0].SHA256); err != nil || !ok || !bytes.Equal(b, jwks) {
		t.Fatalf("stored key file: %d bytes, %v, %v; want the %d bytes loaded", len(b), ok, err, len(jwks))
	}
	if _, ok, err := db.TrustContent(ctx, strings.Repeat("0", 64)); err != nil || ok {
		t.Fatalf("a file never loaded: %v, %v; want none", ok, err)
	}

	third := load(db, c.v, with, true)
	if f := third.Files[0]; !f.Reverified {
		t.Fatalf("--reverify: %+v", f)
	}
	fresh := openTestDB(t)
	load(fresh, c.v, with, false)
	if got, want := verdicts(t, db), verdicts(t, fresh); got != want {
		t.Errorf("re-verified receipts differ from a fresh load's:\n%s", textdiff.Lines(want, got))
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE trust_sha256 = ?", with.ID()); n != 200 {
		t.Errorf("%d receipts point to the new material, want 200", n)
	}
	if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE array_to_string(reasons, ',') LIKE '%chain_%' OR list_contains(reasons, 'nonce_replay')"); n == 0 {
		t.Error("no chain or nonce finding: the corpus does not exercise the judgments kept")
	}
	if f := load(db, c.v, with, true).Files[0]; f.TrustChanged || f.Reverified {
		t.Errorf("same material again: %+v", f)
	}

	// A grown file whose stored lines came from other material: flagged,
	// and with Reverify those lines are verified again beside the new ones.
	lines := readLines(t, c.receipts)
	log := filepath.Join(t.TempDir(), "grown.jsonl")
	writeLines(t, log, lines[:120])
	grownDB := openTestDB(t)
	loadLog := func(v *verify.Verifier, tr Trust, reverify bool) FileSummary {
		t.Helper()
		sum, err := grownDB.Load(ctx, v, []Input{fileInput(log)}, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), At: at, Trust: tr, Reverify: reverify})
		if err != nil {
			t.Fatal(err)
		}
		return sum.Files[0]
	}
	loadLog(blind, without, false)
	writeLines(t, log, lines)
	if f := loadLog(c.v, with, true); f.FirstLine != 121 || !f.TrustChanged || !f.Reverified {
		t.Fatalf("grown file with other material: %+v", f)
	}
	wholeLog := openTestDB(t)
	if _, err := wholeLog.Load(ctx, c.v, []Input{fileInput(log)}, LoadOptions{Schemas: c.schemas, TempDir: t.TempDir(), At: at, Trust: with}); err != nil {
		t.Fatal(err)
	}
	if got, want := verdicts(t, grownDB), verdicts(t, wholeLog); got != want {
		t.Errorf("grown and re-verified, the file is judged otherwise than loaded whole:\n%s", textdiff.Lines(want, got))
	}

	// The report names the material: a manifest field, a summary line.
	dir := t.TempDir()
	if _, err := runReport(ctx, db.SQL(), ReportOptions{Day: "2026-11-01", Dir: dir, ToolVersion: "test"}); err != nil {
		t.Fatal(err)
	}
	var man manifest
	mj, _ := os.ReadFile(filepath.Join(dir, manifestFile))
	if err := json.Unmarshal(mj, &man); err != nil {
		t.Fatal(err)
	}
	if len(man.Trust) != 1 || man.Trust[0].TrustSHA256 != with.ID() || len(man.Trust[0].KeyFiles) != 1 ||
		man.Trust[0].KeyFiles[0].Path != with.Keys[0].Path || man.Trust[0].KeyFiles[0].SHA256 != with.Keys[0].SHA256 || man.Trust[0].JudgedAt != at.Format(time.RFC3339Nano) || man.Trust[0].Receipts == 0 {
		t.Errorf("manifest trust: %+v, want %s", man.Trust, with.ID())
	}
	md, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if !strings.Contains(string(md), "Verdicts from trust material `"+with.ID()[:12]+"` (1 key file(s), 0 schema file(s), judged at "+at.Format(time.RFC3339Nano)) {
		t.Errorf("summary.md does not name the trust material:\n%s", md)
	}
}

// TestSnapshotsOfOneLog: the snapshots of a log taken as it grew (each the
// one before plus new lines), loaded in one call, give the database that
// loading them one at a time gives: each adds only its own new lines.
func TestSnapshotsOfOneLog(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 35, N: 240, Rate: 0.1, Days: 3})
	lines := readLines(t, c.receipts)
	dir := t.TempDir()
	var ins []Input
	for i, n := range []int{80, 80, 170, 240} { // the second is the first again
		p := filepath.Join(dir, "snapshot-"+string(rune('a'+i))+".jsonl")
		writeLines(t, p, lines[:n])
		ins = append(ins, fileInput(p))
	}
	at := testStart.AddDate(0, 0, 40)
	opts := LoadOptions{At: at, Trust: Trust{At: at}}
	together := openTestDB(t)
	opts.TempDir = t.TempDir()
	sum, err := together.Load(context.Background(), c.v, ins, opts)
	if err != nil {
		t.Fatal(err)
	}
	if f := sum.Files; !f[1].AlreadyLoaded || f[2].FirstLine != 81 || f[3].FirstLine != 171 || f[3].Accepted != 70 {
		t.Fatalf("files: %+v", f)
	}
	apart := openTestDB(t)
	for _, in := range ins {
		loadOne(t, apart, c, in, opts)
	}
	if got, want := dump(t, together), dump(t, apart); got != want {
		t.Errorf("loaded together, the snapshots differ from loaded apart:\n%s", textdiff.Lines(want, got))
	}
	if n := queryInt(t, together, "SELECT count(*) FROM receipts"); n != int64(len(lines)) {
		t.Errorf("%d receipts, want %d", n, len(lines))
	}
}

// TestPartialLastLine: a log read while its producer writes a line holds
// that line unterminated and unreadable. It is left out, the file stored
// up to its last newline, and the load that finds it whole adds it: the
// nightly job may run while producers append.
func TestPartialLastLine(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 37, N: 80, Days: 1})
	lines := readLines(t, c.receipts)
	dir := t.TempDir()
	log := filepath.Join(dir, "agent.jsonl")
	partial := append(bytes.Join(lines[:50], []byte("\n")), '\n')
	partial = append(partial, lines[50][:len(lines[50])/2]...)
	if err := os.WriteFile(log, partial, 0o644); err != nil {
		t.Fatal(err)
	}
	db := openTestDB(t)
	if f := loadOne(t, db, c, fileInput(log), LoadOptions{}); !f.Incomplete || f.Accepted != 50 || f.Rejected != 0 || f.Lines != 50 {
		t.Fatalf("while a line is written: %+v, want 50 accepted, the last line left", f)
	}
	before := dump(t, db)
	if f := loadOne(t, db, c, fileInput(log), LoadOptions{}); !f.Incomplete || !f.AlreadyLoaded {
		t.Fatalf("again: %+v, want already loaded, the last line still left", f)
	}
	if after := dump(t, db); after != before {
		t.Errorf("loading it again changed the database:\n%s", textdiff.Lines(before, after))
	}
	writeLines(t, log, lines)
	if f := loadOne(t, db, c, fileInput(log), LoadOptions{}); f.Incomplete || f.FirstLine != 51 || f.Accepted != 30 {
		t.Fatalf("once written: %+v, want lines 51 on", f)
	}
	whole := openTestDB(t)
	loadOne(t, whole, c, fileInput(log), LoadOptions{})
	if got, want := verdicts(t, db), verdicts(t, whole); got != want {
		t.Errorf("loaded while written, the file is judged otherwise than loaded whole:\n%s", textdiff.Lines(want, got))
	}

	// A file holding nothing but a line being written stores nothing.
	only := filepath.Join(dir, "new.jsonl")
	if err := os.WriteFile(only, lines[0][:20], 0o644); err != nil {
		t.Fatal(err)
	}
	if f := loadOne(t, whole, c, fileInput(only), LoadOptions{}); !f.Incomplete || f.AlreadyLoaded || f.Accepted != 0 {
		t.Fatalf("a lone partial line: %+v", f)
	}
	if n := queryInt(t, whole, "SELECT count(*) FROM files WHERE path = ?", only); n != 0 {
		t.Errorf("%d files rows for a lone partial line", n)
	}
}

// TestReadContent: the prefix hashes, the byte after each, the head, the
// aligned hash and the line count agree with hashing the bytes directly,
// however the reader splits them.
func TestReadContent(t *testing.T) {
	t.Parallel()
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	contents := []string{"", "a", "a\n", "first\nsecond\nthird", "first\nsecond\n", "\n\nx\n", strings.Repeat("line of text\n", 5000) + "tail"}
	readers := map[string]func(io.Reader) io.Reader{
		"whole": func(r io.Reader) io.Reader { return r }, "one byte": iotest.OneByteReader, "half": iotest.HalfReader,
	}
	for _, c := range contents {
		data := []byte(c)
		head, _, _ := bytes.Cut(data, []byte("\n"))
		var offs []int64
		for o := int64(len(head)); o <= int64(len(data)); o += 1 + int64(len(data))/7 {
			offs = append(offs, o)
		}
		offs = append(offs, int64(len(data)))
		for name, wrap := range readers {
			id, err := readContent(context.Background(), wrap(bytes.NewReader(data)), func(h string) ([]int64, error) {
				if h != sum(head) {
					t.Errorf("%q %s: head %s, want %s", c, name, h, sum(head))
				}
				return offs, nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if id.sha256 != sum(data) || id.bytes != int64(len(data)) || id.unterminated != (len(data) > 0 && data[len(data)-1] != '\n') {
				t.Errorf("%q %s: %+v", c, name, id)
			}
			al := bytes.LastIndexByte(data, '\n') + 1
			if id.aligned != sum(data[:al]) || id.alignedBytes != int64(al) || id.newlines != int64(bytes.Count(data, []byte("\n"))) {
				t.Errorf("%q %s: aligned %d %s, %d newlines", c, name, id.alignedBytes, id.aligned, id.newlines)
			}
			for _, o := range offs {
				next := -1
				if o < int64(len(data)) {
					next = int(data[o])
				}
				if ph := id.at[o]; ph.sha != sum(data[:o]) || ph.next != next {
					t.Errorf("%q %s: at %d: %+v, want %s next %d", c, name, o, ph, sum(data[:o]), next)
				}
			}
		}
	}
}

// endless is an input that never ends, as /dev/zero.
type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '\n'
	}
	return len(p), nil
}
func (endless) Close() error { return nil }

// TestIdentifyCancelled: a load reading an endless input to know it stops
// when cancelled.
func TestIdentifyCancelled(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 38, N: 5, Days: 1})
	db := openTestDB(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	in := Input{Source: stream.Source{Name: "endless", Lines: true, Open: func() (io.ReadCloser, error) { return endless{}, nil }}}
	done := make(chan error, 1)
	go func() {
		_, err := db.Load(ctx, c.v, []Input{in}, LoadOptions{TempDir: t.TempDir()})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("Load: %v, want the context's error", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Load did not stop when cancelled")
	}
}

// TestPartialLastLineInChunks: a log too large for one chunk of rows has
// its first chunks inserted as it is read, under the whole content's
// SHA-256, before its last line is known to be partial; they are then
// stored under what is kept (the content up to its last newline), and
// the database is the one a load in a single chunk makes, the lines
// the report flags included.
func TestPartialLastLineInChunks(t *testing.T) {
	t.Parallel()
	c := genCorpus(t, "", receiptgen.Config{Seed: 38, N: 2100, Days: 1})
	lines := readLines(t, c.receipts)
	// Lines delivered twice share their values: the first, a PASS, keeps
	// its line once the file's rows are stored. The rows pass
	// batchFileBytes, so the file is not one of a batch of small files.
	content := append(bytes.Join(append(lines[:2000:2000], lines[3], lines[400], lines[1900]), []byte("\n")), '\n')
	content = append(content, lines[2000][:len(lines[2000])/2]...)
	log := filepath.Join(t.TempDir(), "agent.jsonl")
	if err := os.WriteFile(log, content, 0o644); err != nil {
		t.Fatal(err)
	}
	at := testStart.AddDate(0, 0, 2)
	var dumps []string
	for _, chunk := range []int64{0, 256 << 10} {
		db := openTestDB(t)
		f := loadOne(t, db, c, fileInput(log), LoadOptions{At: at, chunkBytes: chunk})
		if !f.Incomplete || f.Accepted != 2003 {
			t.Fatalf("chunks of %d bytes: %+v, want 2003 accepted, the last line left", chunk, f)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE file_sha256 = $1", f.SHA256); n != 2003 {
			t.Errorf("chunks of %d bytes: %d rows under the stored content's SHA-256, want 2003", chunk, n)
		}
		if n := queryInt(t, db, "SELECT count(*) FROM receipts WHERE raw IS NOT NULL AND verdict = 'PASS'"); n < 3 {
			t.Errorf("chunks of %d bytes: %d PASS rows keep their line, want the 3 delivered twice", chunk, n)
		}
		dumps = append(dumps, dump(t, db))
	}
	if dumps[0] != dumps[1] {
		t.Errorf("loaded in chunks, the database differs from one chunk:\n%s", textdiff.Lines(dumps[0], dumps[1]))
	}
}
