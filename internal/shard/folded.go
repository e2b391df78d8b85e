package shard

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// A shard folded alone (`verify finalize --shard N --emit DIR`) is a
// directory of two files, published as a map step's is (a hidden
// attempt directory renamed to DIR):
//
//	results.jsonl | results.txt   the shard's part of the output of verify receipts
//	fold.json                     the run plan's id, SHA-256 and shard count, the
//	                              shard's number, the output format, the results
//	                              file's name, SHA-256 and size, the shard's summary,
//	                              the table files' names, SHA-256 and sizes, the build
//
// With --receipts (FoldWriter.WithReceipts) it also holds the report's
// tables in the layout of verify export (analytics.ReceiptTable):
//
//	receipts/day=YYYY-MM-DD/part-N.parquet   the shard's receipts, final verdicts
//	files/part-0.parquet                     a files row per input of the shard
//	rejects/part-0.parquet                   the shard's unreadable lines
//	expected_tools/part-0.parquet            the plan's expected tool schemas
//	trust/part-0.parquet                     the plan's trust material
//
// The results of every shard, concatenated in shard order, are the
// output of one verify receipts over the plan's inputs (without its
// summary); the summaries add up to its summary (ReadFolds).

// reasonCode is the form of a reason code (verify.Reason).
var reasonCode = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)

// FoldManifest names a folded shard's directory.
const FoldManifest = "fold.json"

// foldVersion is the version of a folded shard's layout.
const foldVersion = 1

type foldManifest struct {
	Version    int    `json:"version"`
	Build      string `json:"build"`
	Run        string `json:"run"`
	PlanSHA256 string `json:"plan_sha256"`
	Shards     int64  `json:"shards"`
	Shard      int64  `json:"shard"`
	Attempt    string `json:"attempt"`
	// Format is the output's: "jsonl" or "text".
	Format  string            `json:"format"`
	Results string            `json:"results"`
	SHA256  string            `json:"sha256"`
	Bytes   int64             `json:"bytes"`
	Summary streamrun.Summary `json:"summary"`
	// Tables are the report's tables written with the results (verify
	// finalize --receipts): the Parquet files of the export's layout, each
	// by its path in the directory, SHA-256 and size; Receipts counts the
	// receipts rows. None without --receipts.
	Tables   []TableFile `json:"tables,omitempty"`
	Receipts int64       `json:"receipts,omitempty"`
}

// TableFile is one Parquet file of a folded shard's report tables.
type TableFile struct {
	Table  string `json:"table"` // one of lakeTables
	Name   string `json:"name"`  // its path in the directory, slash-separated
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// lakeTables are the tables a fold writes with --receipts, in the order
// views name them: what the daily report and the queries read.
var lakeTables = analytics.LakeTables()

// FoldWriter writes one shard's folded output.
type FoldWriter struct {
	dir, attempt string
	plan         *RunPlan
	m            foldManifest
	f            *os.File
	buf          *bufio.Writer
	h            hash.Hash
	// table, with --receipts, holds the shard's receipts rows until Close
	// writes them; contents are the file_sha256 of its sources.
	table    *analytics.ReceiptTable
	tableCtx context.Context
	contents map[string]string
	again    map[lineAt]bool // the lines delivered again: not receipts rows
	// files are the files rows of the shard's sources, in run order; a
	// source whose content an earlier input of the run holds has none.
	files  []*analytics.LakeFile
	fileOf map[string]*analytics.LakeFile
	lines  archiveLines // the inputs, read again for the lines of receipts not PASS
}

// receiptsDB is the name of the database a fold with --receipts fills in
// its attempt directory; it is removed before the directory is published.
const receiptsDB = ".receipts.duckdb"

// WithReceipts makes w also write the shard's receipts, final verdicts
// and reasons, as the report's tables (AddReceipt, then Close): the
// layout, columns and types of verify export, so that the finding
// queries run over them on any engine. run gives the file_sha256 of the
// shard's sources (the map step's manifest), opts the trust material and
// expected schemas.
func (w *FoldWriter) WithReceipts(ctx context.Context, run *Run, opts analytics.ReceiptTableOptions) error {
	w.contents, w.fileOf = map[string]string{}, map[string]*analytics.LakeFile{}
	seen := map[string]bool{} // the contents of the inputs before this shard's
	for _, s := range run.shards {
		if s.m.Shard < w.m.Shard {
			for _, c := range s.m.Contents {
				seen[c.SHA256] = true
			}
		}
	}
	for _, s := range run.shards {
		if s.m.Shard != w.m.Shard {
			continue
		}
		size := map[string]int64{}
		for _, in := range s.m.Inputs {
			size[in.Path] = in.Size
		}
		for _, c := range s.m.Contents {
			w.contents[c.Source] = c.SHA256
			if seen[c.SHA256] {
				// Loaded already from an earlier input: a load adds no
				// files row, and its lines are all delivered again.
				continue
			}
			seen[c.SHA256] = true
			f := &analytics.LakeFile{Path: c.Source, Size: size[c.Source], Content: c.FileContent}
			w.files = append(w.files, f)
			w.fileOf[c.Source] = f
		}
	}
	again, err := redelivered(ctx, run, w.m.Shard)
	if err != nil {
		return err
	}
	t, err := analytics.CreateReceiptTable(ctx, filepath.Join(w.attempt, receiptsDB), opts)
	if err != nil {
		return err
	}
	w.table, w.tableCtx, w.again = t, ctx, again
	return nil
}

// AddReceipt adds a final result to the report's tables (with
// WithReceipts): a receipts row, or a rejects row for an unreadable
// line, counted in its source's files row. The line of a receipt that
// does not PASS, and of an unreadable one, is read again from its input
// (raw), as a load keeps it; a line that is not the one the map step
// verified is refused. The records of a source the
// map step could not read to its end are left out, as a load records
// nothing of such a file; so are the lines an earlier input of the run
// holds byte for byte, which a load stores once, counting them as
// redelivered.
func (w *FoldWriter) AddReceipt(res *verify.Result, line *streamrun.LineRef) error {
	if w.table == nil {
		return nil
	}
	sum, ok := w.contents[res.Source]
	if !ok || res.Line == 0 {
		return nil
	}
	f := w.fileOf[res.Source]
	if f == nil {
		return nil // an input the run read before: stored once
	}
	switch {
	case res.Verdict == verify.Unreadable:
		f.Rejected++
	case w.again[lineAt{res.Source, int64(res.Line)}]:
		f.Redelivered++
		if d := w.table.DayOf(res); !slices.Contains(f.RedeliveredDays, d) {
			f.RedeliveredDays = append(f.RedeliveredDays, d)
		}
		return nil
	default:
		f.Accepted++
	}
	var raw []byte
	if line != nil && res.Verdict != verify.Pass {
		var err error
		if raw, err = w.lines.line(res.Source, line); err != nil {
			return err
		}
	}
	return w.table.Add(w.tableCtx, res, sum, line, raw)
}

// writeTables writes the receipts table and its companions into the
// attempt directory and names each file in the manifest.
func (w *FoldWriter) writeTables() error {
	t := w.table
	w.table = nil
	w.lines.close()
	w.m.Receipts = t.Rows()
	var err error
	for _, f := range w.files {
		if err = t.AddFile(w.tableCtx, *f); err != nil {
			break
		}
	}
	if err == nil {
		_, err = t.Export(w.tableCtx, w.attempt, analytics.ExportOptions{})
	}
	if cerr := t.Close(); err == nil {
		err = cerr
	}
	os.RemoveAll(filepath.Join(w.attempt, receiptsDB+".tmp"))
	if err != nil {
		return err
	}
	for _, table := range lakeTables {
		err := filepath.WalkDir(filepath.Join(w.attempt, table), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(w.attempt, path)
			if err != nil {
				return err
			}
			sum, err := fileSHA256(path, true)
			if err != nil {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			w.m.Tables = append(w.m.Tables, TableFile{Table: table, Name: filepath.ToSlash(rel), SHA256: sum, Bytes: fi.Size()})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// resultsName is the results file's name for format.
func resultsName(format string) string {
	if format == "jsonl" {
		return "results.jsonl"
	}
	return "results.txt"
}

// CreateFold starts writing the output of shard n of plan, in format
// ("jsonl" or "text"), into a hidden attempt directory beside dir; Close
// publishes it as dir. dir must not exist or be empty; one published by
// this plan and shard already gives ErrPublished.
func CreateFold(dir string, plan *RunPlan, n int64, format string) (*FoldWriter, error) {
	dir = filepath.Clean(dir)
	if n < 0 || n >= plan.Shards {
		return nil, &Error{Reason: ReasonExtraShard, Path: plan.Path, Msg: fmt.Sprintf("--shard %d: the plan has shards 0 to %d", n, plan.Shards-1)}
	}
	if format != "jsonl" && format != "text" {
		return nil, fmt.Errorf("no output format %q", format)
	}
	base := filepath.Base(dir)
	if base == "." || base == ".." || base == string(filepath.Separator) {
		return nil, fmt.Errorf("%s: name a directory of its own for the shard", dir)
	}
	if err := checkFoldTarget(dir, plan, n); err != nil {
		return nil, err
	}
	attempt, err := newAttempt(dir)
	if err != nil {
		return nil, err
	}
	w := &FoldWriter{dir: dir, attempt: attempt, plan: plan, h: sha256.New(), m: foldManifest{
		Version: foldVersion, Build: build(), Run: plan.ID, PlanSHA256: plan.SHA256, Shards: plan.Shards, Shard: n,
		Attempt: filepath.Base(attempt), Format: format, Results: resultsName(format)}}
	w.f, err = os.OpenFile(filepath.Join(attempt, w.m.Results), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		w.Abort()
		return nil, err
	}
	w.buf = bufio.NewWriterSize(w.f, 1<<16)
	return w, nil
}

// Write appends p to the shard's results.
func (w *FoldWriter) Write(p []byte) (int, error) {
	n, err := w.buf.Write(p)
	w.h.Write(p[:n])
	w.m.Bytes += int64(n)
	return n, err
}

// Close writes fold.json with the shard's summary and publishes the
// attempt as the shard's directory in one rename. ErrPublished: another
// attempt of the shard published first, and this one's files are
// removed.
func (w *FoldWriter) Close(sum streamrun.Summary) error {
	err := w.buf.Flush()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err != nil {
		return w.failed(err)
	}
	w.m.SHA256 = hex.EncodeToString(w.h.Sum(nil))
	w.m.Summary = sum
	if w.table != nil {
		if err := w.writeTables(); err != nil {
			return w.failed(err)
		}
	}
	b, err := json.MarshalIndent(w.m, "", "  ")
	if err != nil {
		return w.failed(err)
	}
	if err := writeSynced(filepath.Join(w.attempt, FoldManifest), append(b, '\n')); err != nil {
		return w.failed(err)
	}
	if err := publishAttempt(w.attempt, w.dir); err != nil {
		return w.failed(err)
	}
	w.attempt = ""
	return nil
}

func (w *FoldWriter) failed(err error) error {
	w.Abort()
	if checkFoldTarget(w.dir, w.plan, w.m.Shard) == ErrPublished {
		return ErrPublished
	}
	return err
}

// Abort removes the attempt: nothing is published.
func (w *FoldWriter) Abort() {
	w.lines.close()
	if w.table != nil {
		w.table.Close()
		w.table = nil
	}
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	if w.attempt != "" {
		os.RemoveAll(w.attempt)
		w.attempt = ""
	}
}

// FoldPublished reports whether dir holds shard n of plan folded by
// some attempt.
func FoldPublished(dir string, plan *RunPlan, n int64) bool {
	return checkFoldTarget(filepath.Clean(dir), plan, n) == ErrPublished
}

// checkFoldTarget refuses a dir that holds anything but nothing or this
// shard of this plan folded (ErrPublished).
func checkFoldTarget(dir string, plan *RunPlan, n int64) error {
	return checkPublishTarget(dir, plan, n, "a folded shard's directory", "folded shard", func(dir string) (owner, error) {
		m, err := readFoldManifest(dir)
		if err != nil {
			return owner{}, err
		}
		return owner{m.Run, m.PlanSHA256, m.Shard}, nil
	})
}

func readFoldManifest(dir string) (*foldManifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, FoldManifest))
	if err != nil {
		return nil, &Error{Reason: ReasonMissing, Path: dir, Msg: "not a folded shard's directory: no " + FoldManifest + " (" + errText(err) + ")"}
	}
	var m foldManifest
	bad := func(format string, a ...any) error {
		return &Error{Reason: ReasonManifest, Path: filepath.Join(dir, FoldManifest), Msg: fmt.Sprintf(format, a...)}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, bad("%v", err)
	}
	switch {
	case m.Version != foldVersion:
		return nil, bad("layout version %d, want %d (written by another verify: fold the shard again)", m.Version, foldVersion)
	case m.Build != build():
		return nil, bad("written by verify build %q, this is %q: run every step with one build", m.Build, build())
	case m.Shard < 0 || m.Shard > MaxShard:
		return nil, bad("shard %d out of range", m.Shard)
	case m.Results != resultsName(m.Format) || (m.Format != "jsonl" && m.Format != "text"):
		return nil, bad("format %q with results %q: want jsonl with %s or text with %s", m.Format, m.Results, resultsName("jsonl"), resultsName("text"))
	case len(m.SHA256) != 64 || m.Bytes < 0:
		return nil, bad("no SHA-256 or a negative size for %s", m.Results)
	}
	names := map[string]bool{}
	for _, f := range m.Tables {
		if names[f.Name] {
			return nil, bad("table file %q named twice", f.Name)
		}
		names[f.Name] = true
		if !slices.Contains(lakeTables, f.Table) || !strings.HasPrefix(f.Name, f.Table+"/") || !strings.HasSuffix(f.Name, ".parquet") ||
			!filepath.IsLocal(filepath.FromSlash(f.Name)) || len(f.SHA256) != 64 || f.Bytes < 0 {
			return nil, bad("table file %q of %q: not a Parquet file of the directory's %s/ with a SHA-256 and a size", f.Name, f.Table, f.Table)
		}
	}
	if len(m.Tables) > 0 && (!slices.ContainsFunc(m.Tables, func(f TableFile) bool { return f.Table == exportdir.ExpectedTools }) ||
		!slices.ContainsFunc(m.Tables, func(f TableFile) bool { return f.Table == exportdir.Trust })) {
		return nil, bad("tables without %s or %s: a fold with --receipts writes both", exportdir.ExpectedTools, exportdir.Trust)
	}
	s := m.Summary
	if s.Files < 0 || s.FilesFailed < 0 || s.Lines < 0 || s.Blank < 0 || s.Pass < 0 || s.Fail < 0 || s.Incomplete < 0 || s.Unreadable < 0 ||
		s.Receipts != s.Pass+s.Fail+s.Incomplete || s.Duplicates < 0 || s.Duplicates > s.Receipts || s.ChainsOutside < 0 || s.ChainsOutside > s.Receipts {
		return nil, bad("a summary with a negative count, receipts that are not its pass, fail and incomplete, or more duplicates or chains outside than receipts")
	}
	for r, n := range s.Reasons {
		// A reason is printed in the summary: a code, never text that a
		// terminal acts on.
		if !reasonCode.MatchString(string(r)) || n <= 0 {
			return nil, bad("summary: reason %q with count %d: not a reason code of verify with a positive count", r, n)
		}
	}
	return &m, nil
}

// Folds are the folded shards of a run, checked against its plan.
type Folds struct {
	// Format is the output format every shard was folded in.
	Format string
	// Results are the shards' results files, in shard order.
	Results []string
	// Summary is the run's: the shards' summaries added up.
	Summary streamrun.Summary
	// Tables are the report's tables' files, absolute, by table, when
	// every shard was folded with --receipts: each shard's receipts,
	// files and rejects, in shard order, and the first shard's
	// expected_tools and trust (every shard writes the same rows: the
	// plan's). Unfolded lists the shards folded without them.
	Tables   map[string][]string
	Unfolded []int64
}

// ReadFolds checks the folded shards' directories dirs against plan: one
// per shard of the plan, none of another plan, all of one output format,
// each results file the bytes its fold.json names. Every refusal is an
// *Error naming the directory or file.
func ReadFolds(plan *RunPlan, dirs []string) (*Folds, error) {
	byShard := map[int64]string{}
	ms := map[int64]*foldManifest{}
	out := &Folds{Summary: streamrun.Summary{Reasons: map[verify.Reason]int64{}}}
	for _, d := range dirs {
		m, err := readFoldManifest(d)
		if err != nil {
			return nil, err
		}
		switch {
		case m.PlanSHA256 != plan.SHA256:
			return nil, &Error{Reason: ReasonForeign, Path: d, Msg: fmt.Sprintf("folded shard %d of run %s (plan SHA-256 %s), not of run %s (%s, %s): a foreign shard",
				m.Shard, m.Run, m.PlanSHA256, plan.ID, plan.Path, plan.SHA256)}
		case m.Shard >= plan.Shards:
			return nil, &Error{Reason: ReasonExtraShard, Path: d, Msg: fmt.Sprintf("shard %d, and the plan has shards 0 to %d", m.Shard, plan.Shards-1)}
		case out.Format != "" && m.Format != out.Format:
			return nil, &Error{Reason: ReasonManifest, Path: d, Msg: fmt.Sprintf("folded as %s, and %s as %s: fold every shard in one format", m.Format, byShard[0], out.Format)}
		}
		if other, ok := byShard[m.Shard]; ok {
			return nil, &Error{Reason: ReasonDuplicateShard, Path: d, Msg: fmt.Sprintf("folded shard %d, as %s is: give each shard once", m.Shard, other)}
		}
		out.Format = m.Format
		byShard[m.Shard], ms[m.Shard] = d, m
	}
	for n := range plan.Shards {
		d, ok := byShard[n]
		if !ok {
			return nil, &Error{Reason: ReasonMissing, Path: plan.Path, Msg: fmt.Sprintf("folded shard %d of %d is missing: no directory given holds it", n, plan.Shards)}
		}
		m := ms[n]
		path := filepath.Join(d, m.Results)
		fi, err := os.Stat(path)
		if err != nil {
			return nil, &Error{Reason: ReasonMissing, Path: path, Msg: "the results cannot be read: " + errText(err)}
		}
		if fi.Size() != m.Bytes {
			return nil, &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("%d bytes, %s says %d: not the results the fold wrote", fi.Size(), FoldManifest, m.Bytes)}
		}
		sum, err := fileSHA256(path, false)
		if err != nil {
			return nil, &Error{Reason: ReasonMissing, Path: path, Msg: "the results cannot be read: " + errText(err)}
		}
		if sum != m.SHA256 {
			return nil, &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("SHA-256 %s, %s says %s: not the results the fold wrote", sum, FoldManifest, m.SHA256)}
		}
		out.Results = append(out.Results, path)
		out.Summary = AddSummary(out.Summary, m.Summary)
		if len(m.Tables) == 0 {
			out.Unfolded = append(out.Unfolded, n)
			continue
		}
		if out.Tables == nil {
			out.Tables = map[string][]string{}
		}
		for _, f := range m.Tables {
			path := filepath.Join(d, filepath.FromSlash(f.Name))
			if err := checkFile(path, f.SHA256, f.Bytes); err != nil {
				return nil, err
			}
			if (f.Table == exportdir.ExpectedTools || f.Table == exportdir.Trust) && n != 0 {
				continue
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return nil, err
			}
			out.Tables[f.Table] = append(out.Tables[f.Table], abs)
		}
	}
	if len(out.Unfolded) > 0 {
		out.Tables = nil
	}
	return out, nil
}

// checkFile checks that the file at path is the one a fold wrote: its
// size and SHA-256.
func checkFile(path, sha string, bytes int64) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &Error{Reason: ReasonMissing, Path: path, Msg: "a file " + FoldManifest + " names cannot be read: " + errText(err)}
	}
	if fi.Size() != bytes {
		return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("%d bytes, %s says %d: not the file the fold wrote", fi.Size(), FoldManifest, bytes)}
	}
	sum, err := fileSHA256(path, false)
	if err != nil {
		return &Error{Reason: ReasonMissing, Path: path, Msg: "a file " + FoldManifest + " names cannot be read: " + errText(err)}
	}
	if sum != sha {
		return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("SHA-256 %s, %s says %s: not the file the fold wrote", sum, FoldManifest, sha)}
	}
	return nil
}

// lineAt names a record by its source and line.
type lineAt struct {
	source string
	line   int64
}

// redelivered are the records of shard n whose line, byte for byte
// (line_sha256), an earlier record of another input already holds, in
// the run's order: lines a load stores once, from the first file that
// holds them (files.redelivered), and a fold leaves out of the receipts
// table. The parts of the shards before n are checked against their
// manifests first (the fold of shard n read only its own).
func redelivered(ctx context.Context, run *Run, n int64) (map[lineAt]bool, error) {
	var earlier, own []string
	var check []*shardDir
	for _, s := range run.shards {
		switch {
		case s.m.Shard < n:
			check = append(check, s)
			earlier = append(earlier, partsOf([]*shardDir{s})...)
		case s.m.Shard == n:
			own = partsOf([]*shardDir{s})
		}
	}
	if err := checkParts(ctx, check); err != nil {
		return nil, err
	}
	db, err := openDuckDB()
	if err != nil {
		return nil, err
	}
	defer db.Close()
	// Lines: the receipts (not the unreadable lines, which a load puts in
	// rejects) of shards 0 to n.
	cols := "SELECT ord, source, line, line_sha256 FROM read_parquet(%s) WHERE line_sha256 IS NOT NULL AND verdict <> 'UNREADABLE'"
	from := fmt.Sprintf(cols, duckDBFiles(own))
	if len(earlier) > 0 {
		from += " UNION ALL " + fmt.Sprintf(cols, duckDBFiles(earlier))
	}
	rows, err := db.QueryContext(ctx, `WITH lines AS (`+from+`),
own AS (SELECT * FROM lines WHERE ord >= $1),
firsts AS (SELECT l.line_sha256 AS line_sha256, l.source AS source, MIN(l.ord) AS first
           FROM lines l WHERE l.line_sha256 IN (SELECT line_sha256 FROM own) GROUP BY l.line_sha256, l.source)
SELECT DISTINCT o.source, o.line FROM own o JOIN firsts f ON f.line_sha256 = o.line_sha256 AND f.source <> o.source AND f.first < o.ord`, n<<SeqBits)
	if err != nil {
		return nil, fmt.Errorf("finding the lines delivered again: %w", err)
	}
	defer rows.Close()
	out := map[lineAt]bool{}
	for rows.Next() {
		var k lineAt
		if err := rows.Scan(&k.source, &k.line); err != nil {
			return nil, err
		}
		out[k] = true
	}
	return out, rows.Err()
}

// ReadLake reads the folded shards of a run that dir holds, its
// directories with a fold.json (hidden ones, a fold's attempts, left
// out), and checks them as ReadFolds does: against plan, or, when plan
// is nil, against the run the first of them names (every one of that
// run, one per shard of its count). A directory under dir that is not a
// folded shard is refused, as a glob would read it.
func ReadLake(dir string, plan *RunPlan) (*Folds, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, &Error{Reason: ReasonMissing, Path: dir, Msg: "the lake cannot be read: " + errText(err)}
	}
	var dirs []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") || !e.IsDir() {
			continue
		}
		dirs = append(dirs, filepath.Join(dir, e.Name()))
	}
	if len(dirs) == 0 {
		return nil, &Error{Reason: ReasonMissing, Path: dir, Msg: "no folded shard: give the directory the folds were emitted into (verify finalize --shard N --emit DIR/shard-N --receipts)"}
	}
	if plan == nil {
		m, err := readFoldManifest(dirs[0])
		if err != nil {
			return nil, err
		}
		plan = &RunPlan{Plan: &Plan{ID: m.Run, Shards: m.Shards}, Path: dir, SHA256: m.PlanSHA256}
	}
	return ReadFolds(plan, dirs)
}
