package analytics

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/helpers/outfile"
	"github.com/receiptverify/verify/internal/helpers/swapdir"
	"github.com/receiptverify/verify/queries"
)

// ReportOptions say which day to report, where, and what fails it.
type ReportOptions struct {
	Day         string // YYYY-MM-DD, UTC
	Dir         string // created if missing
	ToolVersion string // recorded in manifest.json and summary.md

	// FailOn is the lowest severity that fails the day (0: DefaultFailOn):
	// summary.md's verdict and ReportSummary.Failing count the rows at it
	// or above that no baseline entry suppresses.
	FailOn severity.Severity
	// Baseline, if not nil, suppresses the tool-schema findings it accepts.
	Baseline *baseline.Baseline
	// Now judges the baseline's expiry dates (zero: the wall clock). It is
	// the only input from outside the database: with the same Now, the
	// same day of the same data gives the same bytes.
	Now time.Time
	// OCSF also writes OCSFFile: every finding row as an OCSF Detection
	// Finding event.
	OCSF bool
	// ECS also writes ecsFile: every finding row as an Elastic Common
	// Schema event; SARIF writes sarifFile, one SARIF 2.1.0 log of them.
	ECS, SARIF bool
	// Shared, if not nil, holds finding queries run once for several
	// days (ShareFindings): the day's rows are read from them, so the
	// days must be reported in ascending order.
	Shared *SharedFindings
	// NotRead are the files the run's input directories held and did not
	// read (LoadSummary.Skipped), named in summary.md and manifest.json so
	// that a receipt file under an unexpected name is not left out unseen.
	NotRead []string
	// Gaps are the thresholds gaps.sql judges sources by (zero: the
	// defaults, queries.DefaultGapSettings()).
	Gaps queries.GapSettings
	// Run names the run in report_runs, where DB.Report records each
	// report it writes: "verify audit 2026-11-05T01:10:02Z pid 4711".
	Run string
}

// Report file names in the output directory, besides <finding>.csv and
// <finding>.jsonl for each of Findings.
const (
	SummaryFile  = "summary.md"
	manifestFile = "manifest.json"
	chartFile    = "fingerprints.svg"
	oCSFFile     = "findings.ocsf.jsonl"
	ecsFile      = "findings.ecs.jsonl"
	sarifFile    = "findings.sarif"
)

// ReportSummary is what a report found.
type ReportSummary struct {
	Day      string
	Dir      string
	Receipts dayCounts       // the day's receipts
	Findings []findingCount  // one per Findings entry, in that order
	Files    []string        // names written in Dir, in write order
	Inputs   []manifestInput // the day's files (files.sql): those holding its receipts, and those with none loaded on it
	Late     []lateDelivery  // receipts of the day loaded after a report of it was written

	FailOn     severity.Severity      // the level that fails the day
	Severities severity.Count         // rows no baseline entry suppresses, by severity
	Suppressed int                    // rows a baseline entry suppresses
	Baseline   []baseline.Suppression // one per baseline entry, in file order
}

// Failing is the number of rows that fail the day: at FailOn or above
// and not suppressed. The CLI exits 1 when it is not 0.
func (s *ReportSummary) Failing() int { return s.Severities.AtLeast(s.FailOn) }

// Expired lists the baseline entries past their expiry.
func (s *ReportSummary) Expired() []baseline.Suppression {
	var out []baseline.Suppression
	for _, b := range s.Baseline {
		if b.Expired {
			out = append(out, b)
		}
	}
	return out
}

// dayCounts are a day's receipts by verdict: those issued on the day and
// those without issued_at loaded on it (Undated of them).
type dayCounts struct {
	Receipts   int64 `json:"receipts"`
	Pass       int64 `json:"pass"`
	Fail       int64 `json:"fail"`
	Incomplete int64 `json:"incomplete"`
	Undated    int64 `json:"undated"`
	// UnknownFormat of the Incomplete are of a format this tool does not
	// read: not checked, counted apart from the failures.
	UnknownFormat int64 `json:"unknown_format"`
}

// findingCount is the number of rows of one finding type, and by kind
// (drift and replays: kind; failures: reasons; collisions: tool name;
// rejects: none) and severity.
type findingCount struct {
	Name       string
	Rows       int
	Kinds      []kindCount    // sorted by kind
	Severities severity.Count // rows not suppressed
	Suppressed int
}

// kindCount is the rows of one kind.
type kindCount struct {
	Kind string `json:"kind"`
	Rows int    `json:"rows"`
}

// Total is the number of finding rows of every type.
func (s *ReportSummary) Total() int {
	n := 0
	for _, f := range s.Findings {
		n += f.Rows
	}
	return n
}

// Report runs the finding queries for one UTC day and writes, in
// opts.Dir: <finding>.csv (RFC 4180, header row, RFC 3339 UTC times) and
// <finding>.jsonl for each of Findings, each row with its severity,
// finding_id, event_time and whether the baseline suppresses it; the
// chart (fingerprints.svg, up to ChartDays days up to the day);
// summary.md, opening with the verdict, and summary.html, the same as one
// self-contained page; findings.ocsf.jsonl if asked; and manifest.json. The files are written
// in a hidden directory beside Dir, put in its place by one rename
// (publishReport), and nothing depends on the clock but the baseline's expiry
// (opts.Now), so reporting the same day of the same data again gives the
// same bytes. A database error is an *dberr.IOError, a file that cannot be
// written a *dberr.WriteError.
func (db *DB) Report(ctx context.Context, opts ReportOptions) (*ReportSummary, error) {
	sum, err := runReport(ctx, db.sql, opts)
	if err != nil {
		return nil, err
	}
	// A database opened read-only (verify report, beside other readers)
	// cannot record the generation; a load's own audit does.
	if !db.readOnly {
		if err := db.recordReport(ctx, opts); err != nil {
			return nil, err
		}
	}
	return sum, nil
}

// runReport is DB.Report on any querier.
func runReport(ctx context.Context, q querier, opts ReportOptions) (*ReportSummary, error) {
	day, err := queries.ParseDay(opts.Day)
	if err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		return nil, errors.New("report: no output directory")
	}
	if opts.FailOn == 0 {
		opts.FailOn = severity.DefaultFailOn
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	r := &reportRun{ctx: ctx, q: q, opts: opts, day: day, sum: &ReportSummary{Day: opts.Day, Dir: opts.Dir, FailOn: opts.FailOn}}
	r.man = &manifest{
		Version: 1, Tool: "verify", ToolVersion: opts.ToolVersion, Day: opts.Day,
		Window:       window{day.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339)},
		ChartWindow:  window{day.AddDate(0, 0, 1-chartDays).Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339)},
		Findings:     map[string]int{},
		FindingKinds: map[string][]kindCount{},
	}
	if r.man.DuckDBVersion, err = duckdbVersion(ctx, q); err != nil {
		return nil, err
	}
	if err := r.inputs(); err != nil {
		return nil, err
	}
	tables, err := r.findings()
	if err != nil {
		return nil, err
	}
	servers, err := expectedServers(ctx, q)
	if err != nil {
		return nil, err
	}
	toolDays, err := r.run("tool_days")
	if err != nil {
		return nil, err
	}
	// The files are written after every query ran, and not begun once
	// the run is stopped; they are published whole (publishReport): an
	// interrupted report leaves the day's directory as it was.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := r.write(tables, toolDays, servers); err != nil {
		return nil, err
	}
	return r.sum, nil
}

// reportRun is one Report: what it was asked, and the summary and
// manifest its steps fill.
type reportRun struct {
	ctx  context.Context
	q    querier
	opts ReportOptions
	day  time.Time
	sum  *ReportSummary
	man  *manifest
}

// run runs the named query for the day (or takes its rows from the
// findings run once for every day, opts.Shared) and records it in the
// manifest.
func (r *reportRun) run(name string) (*table.Table, error) {
	query, err := queries.Lookup(name)
	if err != nil {
		return nil, err
	}
	t, ok, err := r.opts.Shared.take(name, r.opts.Day)
	if err != nil {
		return nil, err
	}
	if !ok {
		if t, err = runText(r.ctx, r.q, name, r.opts.Gaps.Apply(name, query.Text), r.opts.Day); err != nil {
			return nil, err
		}
	}
	mq := manifestQuery{Name: name, File: query.File, SHA256: query.SHA256, Rows: len(t.Rows)}
	if text := r.opts.Gaps.Apply(name, query.Text); text != query.Text {
		mq.Settings = r.opts.Gaps.String() // the line that replaced the file's own
	}
	r.man.Queries = append(r.man.Queries, mq)
	return t, nil
}

// inputs fills the day's receipt counts, the files loaded and the trust
// material they were verified with.
func (r *reportRun) inputs() error {
	sum, man := r.sum, r.man
	days, err := r.run("days")
	if err != nil {
		return err
	}
	if len(days.Rows) == 1 {
		row := days.Rows[0]
		sum.Receipts = dayCounts{asInt(row[days.Col("receipts")]), asInt(row[days.Col("pass")]), asInt(row[days.Col("fail")]), asInt(row[days.Col("incomplete")]), asInt(row[days.Col("undated")]), asInt(row[days.Col("unknown_format")])}
	}
	man.Receipts = sum.Receipts
	files, err := r.run("files")
	if err != nil {
		return err
	}
	for _, row := range files.Rows {
		g := func(c string) any { return row[files.Col(c)] }
		sum.Inputs = append(sum.Inputs, manifestInput{Path: table.Text(g("path")), SHA256: table.Text(g("file_sha256")),
			SizeBytes: asInt(g("size_bytes")), Lines: asInt(g("lines")), Accepted: asInt(g("accepted")),
			Rejected: asInt(g("rejected")), ReceiptsOnDay: asInt(g("receipts_on_day")), Redelivered: asInt(g("redelivered"))})
	}
	man.Inputs = sum.Inputs
	man.NotRead = r.opts.NotRead
	if sum.Late, err = lateDeliveries(r.ctx, r.q, r.opts.Day); err != nil {
		return err
	}
	man.LateDeliveries = sum.Late
	if man.Inputs == nil {
		man.Inputs = []manifestInput{}
	}
	man.Trust = []manifestTrust{}
	if ok, err := hasTrust(r.ctx, r.q); err != nil {
		return err
	} else if ok {
		trust, err := r.run("trust")
		if err != nil {
			return err
		}
		man.Trust = trustOfManifest(trust)
	}
	return nil
}

// findings runs the finding queries, applies the baseline and counts
// their rows by severity, suppressed apart.
func (r *reportRun) findings() (map[string]*table.Table, error) {
	sum, man, opts := r.sum, r.man, r.opts
	tables := map[string]*table.Table{}
	for _, name := range queries.Findings() {
		t, err := r.run(name)
		if err != nil {
			return nil, err
		}
		tables[name] = t
	}
	sum.Baseline = opts.Baseline.Apply(tables, opts.Now)
	for _, name := range queries.Findings() {
		t := tables[name]
		fc := findingCount{Name: name, Rows: len(t.Rows), Kinds: kindCounts(name, t)}
		for _, row := range t.Rows {
			if baseline.IsSuppressed(t, row) {
				fc.Suppressed++
			} else {
				fc.Severities[t.RowSeverity(row)]++
			}
		}
		for i := range fc.Severities {
			sum.Severities[i] += fc.Severities[i]
		}
		sum.Suppressed += fc.Suppressed
		sum.Findings = append(sum.Findings, fc)
		man.Findings[name] = fc.Rows
		man.FindingKinds[name] = fc.Kinds
		if man.FindingKinds[name] == nil {
			man.FindingKinds[name] = []kindCount{}
		}
	}
	man.FailOn = opts.FailOn.String()
	man.Severities = map[string]int{}
	for _, sev := range severity.All() {
		man.Severities[sev.String()] = sum.Severities[sev]
	}
	man.Suppressed, man.Failing = sum.Suppressed, sum.Failing()
	if b := opts.Baseline; b != nil {
		man.Baseline = &manifestBaseline{Path: b.Path, SHA256: b.SHA256, Now: opts.Now.UTC().Format(time.RFC3339Nano), Entries: []manifestBaselineEntry{}}
		for _, s := range sum.Baseline {
			exp, _ := s.Entry.Expires.MarshalTOML()
			man.Baseline.Entries = append(man.Baseline.Entries, manifestBaselineEntry{Entry: s.Entry.String(), Expires: string(exp), Expired: s.Expired, Rows: s.Rows})
		}
	}
	return tables, nil
}

// write renders the day's files and publishes them in opts.Dir, the
// manifest (which lists the others with their SHA-256) last.
func (r *reportRun) write(tables map[string]*table.Table, toolDays *table.Table, servers []serverTools) error {
	sum, man, opts := r.sum, r.man, r.opts
	var files []reportFile
	write := func(name string, data []byte) error {
		files = append(files, reportFile{name, data})
		sum.Files = append(sum.Files, name)
		h := sha256.Sum256(data)
		man.Outputs = append(man.Outputs, manifestOutput{Name: name, SHA256: hex.EncodeToString(h[:]), Bytes: len(data)})
		return nil
	}
	for _, name := range queries.Findings() {
		var c, j bytes.Buffer
		if err := tables[name].WriteCSV(&c); err != nil {
			return err
		}
		if err := tables[name].WriteJSONL(&j); err != nil {
			return err
		}
		if err := write(name+".csv", c.Bytes()); err != nil {
			return err
		}
		if err := write(name+".jsonl", j.Bytes()); err != nil {
			return err
		}
	}
	if opts.OCSF {
		var o bytes.Buffer
		for _, name := range queries.Findings() {
			if err := WriteOCSF(&o, tables[name], opts.ToolVersion, opts.FailOn); err != nil {
				return err
			}
		}
		if err := write(oCSFFile, o.Bytes()); err != nil {
			return err
		}
	}
	if opts.ECS {
		var o bytes.Buffer
		for _, name := range queries.Findings() {
			if err := WriteECS(&o, tables[name], opts.ToolVersion, opts.FailOn); err != nil {
				return err
			}
		}
		if err := write(ecsFile, o.Bytes()); err != nil {
			return err
		}
	}
	if opts.SARIF {
		var o bytes.Buffer
		var ts []*table.Table
		for _, name := range queries.Findings() {
			ts = append(ts, tables[name])
		}
		if err := WriteSARIF(&o, opts.ToolVersion, ts...); err != nil {
			return err
		}
		if err := write(sarifFile, o.Bytes()); err != nil {
			return err
		}
	}
	var tds []toolDay
	for _, row := range toolDays.Rows {
		td := toolDay{Tool: table.Text(row[0]), Day: table.Text(row[1]), Fingerprints: asInt(row[2]), Receipts: asInt(row[3]), Unexpected: -1}
		if u, ok := row[toolDays.Col("unexpected")].(int64); ok {
			td.Unexpected = u
		}
		tds = append(tds, td)
	}
	chartFirst, _ := chartWindow(r.day, chartDays, tds)
	man.ChartWindow = window{chartFirst.Format(time.RFC3339), r.day.AddDate(0, 0, 1).Format(time.RFC3339)}
	chart := fingerprintChart(r.day, chartDays, tds)
	if err := write(chartFile, chart); err != nil {
		return err
	}
	md := summaryMarkdown(sum, man, tables, servers)
	if err := write(SummaryFile, md); err != nil {
		return err
	}
	page, err := summaryHTML(opts.Day, md, chart)
	if err != nil {
		return err
	}
	if err := write(hTMLFile, page); err != nil {
		return err
	}
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return err
	}
	files = append(files, reportFile{manifestFile, append(mj, '\n')})
	sum.Files = append(sum.Files, manifestFile)
	return publishReport(opts.Dir, files)
}

// serverTools is one expected server and how many tool names its schemas
// declare.
type serverTools struct {
	Server string
	Tools  int64
}

// expectedServers lists the servers of expected_tools, by name.
func expectedServers(ctx context.Context, q querier) ([]serverTools, error) {
	rows, err := q.QueryContext(ctx, "SELECT server, COUNT(DISTINCT tool_name) FROM expected_tools GROUP BY server ORDER BY server")
	if err != nil {
		return nil, &dberr.IOError{Op: "query expected_tools", Err: err}
	}
	defer rows.Close()
	var out []serverTools
	for rows.Next() {
		var s serverTools
		if err := rows.Scan(&s.Server, &s.Tools); err != nil {
			return nil, &dberr.IOError{Op: "query expected_tools", Err: err}
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "query expected_tools", Err: err}
	}
	return out, nil
}

func asInt(v any) int64 {
	if n, ok := v.(int64); ok {
		return n
	}
	return 0
}

// kindCounts counts a finding table's rows by kind: the kind column
// (drift, replays), reasons (failures) or tool_name (collisions).
func kindCounts(name string, t *table.Table) []kindCount {
	col := "kind"
	switch name {
	case "failures":
		col = "reasons"
	case "collisions":
		col = "tool_name"
	}
	i := t.Col(col)
	if i < 0 {
		return nil
	}
	n := map[string]int{}
	for _, r := range t.Rows {
		n[table.Text(r[i])]++
	}
	var out []kindCount
	for k, c := range n {
		out = append(out, kindCount{k, c})
	}
	slices.SortFunc(out, func(a, b kindCount) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
}

// reportFile is one file of a report, rendered.
type reportFile struct {
	name string
	data []byte
}

// publishReport makes dir hold files and nothing else, whole: they are
// written in a hidden directory beside dir, which is then put in its
// place by one rename (swapdir), so that a full disk, kill -9, SIGTERM
// or a crash leaves the old report or the new one, never a mix, and the
// next report removes what an interrupted one left. A dir holding
// anything a report does not write is refused, not replaced. Where dir
// cannot be replaced (its parent is not writable, or it is a mount
// point), its files are written in it one by one, each atomically, the
// manifest last.
func publishReport(dir string, files []reportFile) error {
	target := swapdir.Resolve(dir)
	if err := onlyReportFiles(dir, target, files); err != nil {
		return err
	}
	tmp, err := swapdir.Create(target)
	if errors.Is(err, fs.ErrPermission) {
		return writeInPlace(dir, files)
	}
	if err != nil {
		return &dberr.WriteError{Path: dir, Err: err}
	}
	for _, f := range files {
		if err := swapdir.WriteFile(tmp, f.name, f.data); err != nil {
			swapdir.Abort(tmp)
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err // named as the file the user will see
			}
			return &dberr.WriteError{Path: filepath.Join(dir, f.name), Err: err}
		}
	}
	if err := swapdir.Publish(tmp, target); err != nil {
		swapdir.Abort(tmp)
		if swapdir.CannotReplace(err) {
			return writeInPlace(dir, files)
		}
		return &dberr.WriteError{Path: dir, Err: err}
	}
	return nil
}

// onlyReportFiles refuses a report directory that holds an entry no
// report writes (one of files, a name of Findings or a file its
// manifest lists): publishing the report would remove it.
func onlyReportFiles(dir, target string, files []reportFile) error {
	ents, err := os.ReadDir(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &dberr.WriteError{Path: dir, Err: err}
	}
	ours := map[string]bool{manifestFile: true, SummaryFile: true, hTMLFile: true, chartFile: true, oCSFFile: true}
	for _, f := range files {
		ours[f.name] = true
	}
	for _, name := range queries.Findings() {
		ours[name+".csv"], ours[name+".jsonl"] = true, true
	}
	var old manifest
	if b, err := os.ReadFile(filepath.Join(target, manifestFile)); err == nil && json.Unmarshal(b, &old) == nil {
		for _, o := range old.Outputs {
			ours[o.Name] = true
		}
	}
	for _, e := range ents {
		if !ours[e.Name()] || !e.Type().IsRegular() {
			return &dberr.WriteError{Path: filepath.Join(dir, e.Name()), Err: errors.New("not a file of the report, and the report replaces its directory whole: move it, or give --out a directory of its own")}
		}
	}
	return nil
}

// writeInPlace writes files into dir one by one, each atomically, the
// manifest last: the report of a directory that cannot be replaced.
func writeInPlace(dir string, files []reportFile) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return &dberr.WriteError{Path: dir, Err: err}
	}
	for _, f := range files {
		if err := writeFileAtomic(dir, f.name, f.data); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes dir/name as outfile does, so a reader sees the
// old file or the new one, never a part, and a file the user made keeps
// its mode and owner.
func writeFileAtomic(dir, name string, data []byte) error {
	final := filepath.Join(dir, name)
	if err := outfile.WriteFile(final, data); err != nil {
		return &dberr.WriteError{Path: final, Err: err}
	}
	return nil
}
