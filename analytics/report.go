package analytics

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/termtext"
)

// ReportOptions say which day to report, where, and what fails it.
type ReportOptions struct {
	Day         string // YYYY-MM-DD, UTC
	Dir         string // created if missing
	ToolVersion string // recorded in manifest.json and summary.md

	// FailOn is the lowest severity that fails the day (0: DefaultFailOn):
	// summary.md's verdict and ReportSummary.Failing count the rows at it
	// or above that no baseline entry suppresses.
	FailOn Severity
	// Baseline, if not nil, suppresses the tool-schema findings it accepts.
	Baseline *Baseline
	// Now judges the baseline's expiry dates (zero: the wall clock). It is
	// the only input from outside the database: with the same Now, the
	// same day of the same data gives the same bytes.
	Now time.Time
	// OCSF also writes OCSFFile: every finding row as an OCSF Detection
	// Finding event.
	OCSF bool
}

// Report file names in the output directory, besides <finding>.csv and
// <finding>.jsonl for each of Findings.
const (
	SummaryFile  = "summary.md"
	ManifestFile = "manifest.json"
	ChartFile    = "fingerprints.svg"
	OCSFFile     = "findings.ocsf.jsonl"
)

// ReportSummary is what a report found.
type ReportSummary struct {
	Day      string
	Dir      string
	Receipts DayCounts       // the day's receipts
	Findings []FindingCount  // one per Findings entry, in that order
	Files    []string        // names written in Dir, in write order
	Inputs   []ManifestInput // the day's files (files.sql): those holding its receipts, and those with none loaded on it

	FailOn     Severity      // the level that fails the day
	Severities SeverityCount // rows no baseline entry suppresses, by severity
	Suppressed int           // rows a baseline entry suppresses
	Baseline   []Suppression // one per baseline entry, in file order
}

// SeverityCount counts rows by severity, indexed by Severity.
type SeverityCount [SeverityHigh + 1]int

// AtLeast is the number of rows at s or above.
func (c SeverityCount) AtLeast(s Severity) int {
	n := 0
	for i := max(s, SeverityInfo); i <= SeverityHigh; i++ {
		n += c[i]
	}
	return n
}

// Failing is the number of rows that fail the day: at FailOn or above
// and not suppressed. The CLI exits 1 when it is not 0.
func (s *ReportSummary) Failing() int { return s.Severities.AtLeast(s.FailOn) }

// Expired lists the baseline entries past their expiry.
func (s *ReportSummary) Expired() []Suppression {
	var out []Suppression
	for _, b := range s.Baseline {
		if b.Expired {
			out = append(out, b)
		}
	}
	return out
}

// DayCounts are a day's receipts by verdict: those issued on the day and
// those without issued_at loaded on it (Undated of them).
type DayCounts struct {
	Receipts   int64 `json:"receipts"`
	Pass       int64 `json:"pass"`
	Fail       int64 `json:"fail"`
	Incomplete int64 `json:"incomplete"`
	Undated    int64 `json:"undated"`
}

// FindingCount is the number of rows of one finding type, and by kind
// (drift and replays: kind; failures: reasons; collisions: tool name;
// rejects: none) and severity.
type FindingCount struct {
	Name       string
	Rows       int
	Kinds      []KindCount   // sorted by kind
	Severities SeverityCount // rows not suppressed
	Suppressed int
}

// KindCount is the rows of one kind.
type KindCount struct {
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

// Manifest is manifest.json: what a report was made from and of.
type Manifest struct {
	Version       int                    `json:"version"`
	Tool          string                 `json:"tool"`
	ToolVersion   string                 `json:"tool_version"`
	DuckDBVersion string                 `json:"duckdb_version"`
	Day           string                 `json:"day"`
	Window        Window                 `json:"window"`
	ChartWindow   Window                 `json:"chart_window"`
	Queries       []ManifestQuery        `json:"queries"`
	Inputs        []ManifestInput        `json:"inputs"`
	Trust         []ManifestTrust        `json:"trust"`
	Receipts      DayCounts              `json:"receipts"`
	Findings      map[string]int         `json:"findings"`
	FindingKinds  map[string][]KindCount `json:"finding_kinds"`
	FailOn        string                 `json:"fail_on"`
	Severities    map[string]int         `json:"severities"` // rows not suppressed, by severity
	Suppressed    int                    `json:"suppressed"`
	Failing       int                    `json:"failing"` // rows at fail_on or above, not suppressed
	Baseline      *ManifestBaseline      `json:"baseline,omitempty"`
	Outputs       []ManifestOutput       `json:"outputs"`
}

// ManifestBaseline is the baseline file a report applied.
type ManifestBaseline struct {
	Path    string                  `json:"path"`
	SHA256  string                  `json:"sha256"`
	Now     string                  `json:"now"` // the instant expiry was judged at
	Entries []ManifestBaselineEntry `json:"entries"`
}

// ManifestBaselineEntry is one entry and what it did.
type ManifestBaselineEntry struct {
	Entry   string `json:"entry"`
	Expires string `json:"expires"`
	Expired bool   `json:"expired"`
	Rows    int    `json:"rows"`
}

// Window is a half-open UTC interval [from, to).
type Window struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// ManifestQuery is one query the report ran.
type ManifestQuery struct {
	Name   string `json:"name"`
	File   string `json:"file"`
	SHA256 string `json:"sha256"`
	Rows   int    `json:"rows"`
}

// ManifestInput is one input file holding receipts of the day, with its
// counts as loaded.
type ManifestInput struct {
	Path          string `json:"path"`
	SHA256        string `json:"sha256"`
	SizeBytes     int64  `json:"size_bytes"`
	Lines         int64  `json:"lines"`
	Accepted      int64  `json:"accepted"`
	Rejected      int64  `json:"rejected"`
	ReceiptsOnDay int64  `json:"receipts_on_day"`
}

// ManifestTrust is the trust material some of the day's verdicts came
// from (trust.sql): the key and schema files by path and SHA-256, the
// judging time (empty: the clock of the load), strictness, the version of
// the tool that judged, and how many of the day's receipts it judged.
// TrustSHA256 is empty for receipts loaded before provenance was recorded.
type ManifestTrust struct {
	TrustSHA256   string      `json:"trust_sha256"`
	KeyFiles      []TrustFile `json:"key_files"`
	SchemaFiles   []TrustFile `json:"schema_files"`
	JudgedAt      string      `json:"judged_at"`
	StrictSchemas bool        `json:"strict_schemas"`
	ToolVersion   string      `json:"tool_version"`
	Receipts      int64       `json:"receipts"`
}

// ManifestOutput is one file the report wrote (the manifest excepted).
type ManifestOutput struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// Report runs the finding queries for one UTC day and writes, in
// opts.Dir: <finding>.csv (RFC 4180, header row, RFC 3339 UTC times) and
// <finding>.jsonl for each of Findings, each row with its severity,
// finding_id, event_time and whether the baseline suppresses it; the
// chart (fingerprints.svg, up to ChartDays days up to the day);
// summary.md, opening with the verdict, and summary.html, the same as one
// self-contained page; findings.ocsf.jsonl if asked; and manifest.json. Every file is written to a temporary name in Dir and
// renamed, and nothing depends on the clock but the baseline's expiry
// (opts.Now), so reporting the same day of the same data again gives the
// same bytes. A database error is an *IOError, a file that cannot be
// written a *WriteError.
func Report(ctx context.Context, q Querier, opts ReportOptions) (*ReportSummary, error) {
	day, err := ParseDay(opts.Day)
	if err != nil {
		return nil, err
	}
	if opts.Dir == "" {
		return nil, errors.New("report: no output directory")
	}
	if opts.FailOn == 0 {
		opts.FailOn = DefaultFailOn
	}
	if opts.Now.IsZero() {
		opts.Now = time.Now()
	}
	sum := &ReportSummary{Day: opts.Day, Dir: opts.Dir, FailOn: opts.FailOn}
	man := &Manifest{
		Version: 1, Tool: "verify", ToolVersion: opts.ToolVersion, Day: opts.Day,
		Window:       Window{day.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339)},
		ChartWindow:  Window{day.AddDate(0, 0, 1-ChartDays).Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339)},
		Findings:     map[string]int{},
		FindingKinds: map[string][]KindCount{},
	}
	if man.DuckDBVersion, err = duckdbVersion(ctx, q); err != nil {
		return nil, err
	}
	run := func(name string) (*Table, error) {
		query, err := LookupQuery(name)
		if err != nil {
			return nil, err
		}
		t, err := runText(ctx, q, name, query.Text, opts.Day)
		if err != nil {
			return nil, err
		}
		man.Queries = append(man.Queries, ManifestQuery{Name: name, File: query.File, SHA256: query.SHA256, Rows: len(t.Rows)})
		return t, nil
	}

	days, err := run("days")
	if err != nil {
		return nil, err
	}
	if len(days.Rows) == 1 {
		r := days.Rows[0]
		sum.Receipts = DayCounts{asInt(r[days.Col("receipts")]), asInt(r[days.Col("pass")]), asInt(r[days.Col("fail")]), asInt(r[days.Col("incomplete")]), asInt(r[days.Col("undated")])}
	}
	man.Receipts = sum.Receipts
	files, err := run("files")
	if err != nil {
		return nil, err
	}
	for _, r := range files.Rows {
		g := func(c string) any { return r[files.Col(c)] }
		sum.Inputs = append(sum.Inputs, ManifestInput{Path: Text(g("path")), SHA256: Text(g("file_sha256")),
			SizeBytes: asInt(g("size_bytes")), Lines: asInt(g("lines")), Accepted: asInt(g("accepted")),
			Rejected: asInt(g("rejected")), ReceiptsOnDay: asInt(g("receipts_on_day"))})
	}
	man.Inputs = sum.Inputs
	if man.Inputs == nil {
		man.Inputs = []ManifestInput{}
	}
	man.Trust = []ManifestTrust{}
	if ok, err := hasTrust(ctx, q); err != nil {
		return nil, err
	} else if ok {
		trust, err := run("trust")
		if err != nil {
			return nil, err
		}
		man.Trust = manifestTrust(trust)
	}
	tables := map[string]*Table{}
	for _, name := range Findings {
		t, err := run(name)
		if err != nil {
			return nil, err
		}
		tables[name] = t
	}
	sum.Baseline = opts.Baseline.apply(tables, opts.Now)
	for _, name := range Findings {
		t := tables[name]
		fc := FindingCount{Name: name, Rows: len(t.Rows), Kinds: kindCounts(name, t)}
		for _, r := range t.Rows {
			if isSuppressed(t, r) {
				fc.Suppressed++
			} else {
				fc.Severities[rowSeverity(t, r)]++
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
			man.FindingKinds[name] = []KindCount{}
		}
	}
	man.FailOn = opts.FailOn.String()
	man.Severities = map[string]int{}
	for _, sev := range Severities {
		man.Severities[sev.String()] = sum.Severities[sev]
	}
	man.Suppressed, man.Failing = sum.Suppressed, sum.Failing()
	if b := opts.Baseline; b != nil {
		man.Baseline = &ManifestBaseline{Path: b.Path, SHA256: b.SHA256, Now: opts.Now.UTC().Format(time.RFC3339Nano), Entries: []ManifestBaselineEntry{}}
		for _, s := range sum.Baseline {
			exp, _ := s.Entry.Expires.MarshalTOML()
			man.Baseline.Entries = append(man.Baseline.Entries, ManifestBaselineEntry{Entry: s.Entry.String(), Expires: string(exp), Expired: s.Expired, Rows: s.Rows})
		}
	}
	servers, err := expectedServers(ctx, q)
	if err != nil {
		return nil, err
	}
	toolDays, err := run("tool_days")
	if err != nil {
		return nil, err
	}

	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, &WriteError{Path: opts.Dir, Err: err}
	}
	write := func(name string, data []byte) error {
		if err := writeFileAtomic(opts.Dir, name, data); err != nil {
			return err
		}
		sum.Files = append(sum.Files, name)
		h := sha256.Sum256(data)
		man.Outputs = append(man.Outputs, ManifestOutput{Name: name, SHA256: hex.EncodeToString(h[:]), Bytes: len(data)})
		return nil
	}
	for _, name := range Findings {
		var c, j bytes.Buffer
		if err := tables[name].WriteCSV(&c); err != nil {
			return nil, err
		}
		if err := tables[name].WriteJSONL(&j); err != nil {
			return nil, err
		}
		if err := write(name+".csv", c.Bytes()); err != nil {
			return nil, err
		}
		if err := write(name+".jsonl", j.Bytes()); err != nil {
			return nil, err
		}
	}
	if opts.OCSF {
		var o bytes.Buffer
		for _, name := range Findings {
			if err := WriteOCSF(&o, tables[name], opts.ToolVersion, opts.FailOn); err != nil {
				return nil, err
			}
		}
		if err := write(OCSFFile, o.Bytes()); err != nil {
			return nil, err
		}
	}
	var tds []ToolDay
	for _, r := range toolDays.Rows {
		td := ToolDay{Tool: Text(r[0]), Day: Text(r[1]), Fingerprints: asInt(r[2]), Receipts: asInt(r[3]), Unexpected: -1}
		if u, ok := r[toolDays.Col("unexpected")].(int64); ok {
			td.Unexpected = u
		}
		tds = append(tds, td)
	}
	chartFirst, _ := chartWindow(day, ChartDays, tds)
	man.ChartWindow = Window{chartFirst.Format(time.RFC3339), day.AddDate(0, 0, 1).Format(time.RFC3339)}
	chart := FingerprintChart(day, ChartDays, tds)
	if err := write(ChartFile, chart); err != nil {
		return nil, err
	}
	md := summaryMarkdown(sum, man, tables, servers)
	if err := write(SummaryFile, md); err != nil {
		return nil, err
	}
	page, err := summaryHTML(opts.Day, md, chart)
	if err != nil {
		return nil, err
	}
	if err := write(HTMLFile, page); err != nil {
		return nil, err
	}
	mj, err := json.MarshalIndent(man, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(opts.Dir, ManifestFile, append(mj, '\n')); err != nil {
		return nil, err
	}
	sum.Files = append(sum.Files, ManifestFile)
	return sum, nil
}

// ServerTools is one expected server and how many tool names its schemas
// declare.
type ServerTools struct {
	Server string
	Tools  int64
}

// expectedServers lists the servers of expected_tools, by name.
func expectedServers(ctx context.Context, q Querier) ([]ServerTools, error) {
	rows, err := q.QueryContext(ctx, "SELECT server, COUNT(DISTINCT tool_name) FROM expected_tools GROUP BY server ORDER BY server")
	if err != nil {
		return nil, &IOError{Op: "query expected_tools", Err: err}
	}
	defer rows.Close()
	var out []ServerTools
	for rows.Next() {
		var s ServerTools
		if err := rows.Scan(&s.Server, &s.Tools); err != nil {
			return nil, &IOError{Op: "query expected_tools", Err: err}
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, &IOError{Op: "query expected_tools", Err: err}
	}
	return out, nil
}

func duckdbVersion(ctx context.Context, q Querier) (string, error) {
	rows, err := q.QueryContext(ctx, "SELECT version()")
	if err != nil {
		return "", &IOError{Op: "query version", Err: err}
	}
	defer rows.Close()
	var v string
	if rows.Next() {
		err = rows.Scan(&v)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return "", &IOError{Op: "query version", Err: err}
	}
	return v, nil
}

func asInt(v any) int64 {
	if n, ok := v.(int64); ok {
		return n
	}
	return 0
}

// kindCounts counts a finding table's rows by kind: the kind column
// (drift, replays), reasons (failures) or tool_name (collisions).
func kindCounts(name string, t *Table) []KindCount {
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
		n[Text(r[i])]++
	}
	var out []KindCount
	for k, c := range n {
		out = append(out, KindCount{k, c})
	}
	slices.SortFunc(out, func(a, b KindCount) int { return cmp.Compare(a.Kind, b.Kind) })
	return out
}

// WriteError is an output file or directory (report, export) that could
// not be written. The CLI maps it, like *IOError, to exit code 74.
type WriteError struct {
	Path string
	Err  error
}

func (e *WriteError) Error() string { return "write " + e.Path + ": " + e.Err.Error() }
func (e *WriteError) Unwrap() error { return e.Err }

// writeFileAtomic writes dir/name through a temporary file in dir and a
// rename, so a reader sees the old file or the new one, never a part.
func writeFileAtomic(dir, name string, data []byte) error {
	final := filepath.Join(dir, name)
	fail := func(err error) error { return &WriteError{Path: final, Err: err} }
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return fail(err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, final)
	}
	if err != nil {
		os.Remove(tmp)
		return fail(err)
	}
	return nil
}

// Summary caps: rows listed per section before "N more in <file>".
const (
	summaryFailures    = 20
	summaryPerSeverity = 15
)

// summaryMarkdown is summary.md, what a person reads first: the verdict,
// the failed receipts, the other findings by severity, the suppressed
// ones, then the chart, the files and the inputs.
func summaryMarkdown(sum *ReportSummary, man *Manifest, tables map[string]*Table, servers []ServerTools) []byte {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Receipt report for %s (UTC)\n\n", sum.Day)
	p("%s\n\n", verdictLine(sum))
	p("%s\n\n", trustMaterialLine(servers))
	rc := sum.Receipts
	p("Receipts of the day: **%d** (%d pass, %d fail, %d incomplete), from %d input file(s).", rc.Receipts, rc.Pass, rc.Fail, rc.Incomplete, len(sum.Inputs))
	if rc.Undated > 0 {
		p(" %d of them carry no issued_at (UndoLog rows, Overturn entries, or an unreadable time) and count on this day because they were loaded on it.", rc.Undated)
	}
	p("\n\n")
	b.WriteString(trustSummary(man.Trust))
	for _, e := range sum.Expired() {
		exp, _ := e.Entry.Expires.MarshalTOML()
		matched := fmt.Sprintf("the %d row(s) of this day it matches count again", e.Rows)
		if e.Rows == 0 {
			matched = "it matches no row of this day"
		}
		p("> **Warning:** baseline entry %d (%s) expired on %s (reason: %s); it suppresses nothing now, and %s. Renew it with a new date or remove it.\n\n",
			e.Index, mdText(e.Entry.String()), exp, mdText(e.Entry.Reason), matched)
	}

	failures := tables["failures"]
	if len(failures.Rows) > 0 {
		p("## Failed receipts\n\n| file:line | verdict | reasons | tool | action_id | issued_at |\n|---|---|---|---|---|---|\n")
		for _, r := range failures.Rows[:min(summaryFailures, len(failures.Rows))] {
			g := func(c string) string { return Text(r[failures.Col(c)]) }
			p("| %s | %s | %s | %s | %s | %s |\n", mdText(cellPath(g("source"))+":"+g("line")), g("verdict"), mdText(g("reasons")), mdText(cell(g("tool_name"))), mdText(cell(g("action_id"))), g("issued_at"))
		}
		if n := len(failures.Rows) - summaryFailures; n > 0 {
			p("\n%d more in [failures.csv](failures.csv).\n", n)
		}
		p("\nBy reason: ")
		f := sum.Findings[slices.IndexFunc(sum.Findings, func(f FindingCount) bool { return f.Name == "failures" })]
		kinds := slices.Clone(f.Kinds)
		slices.SortStableFunc(kinds, func(a, b KindCount) int { return cmp.Compare(b.Rows, a.Rows) })
		for i, k := range kinds {
			if i > 0 {
				p(", ")
			}
			p("%s %d", mdText(k.Kind), k.Rows)
		}
		p(". Each failed receipt's axes and notes: `verify receipts` on its file.\n\n")
	}

	p("## Findings by severity\n\n")
	if sum.Total() == 0 {
		p("No findings.\n\n")
	} else {
		p("| severity | rows | by finding |\n|---|---:|---|\n")
		for _, sev := range Severities {
			var parts []string
			for _, f := range sum.Findings {
				if n := f.Severities[sev]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s %d", f.Name, n))
				}
			}
			mark := ""
			if sev >= sum.FailOn {
				mark = " (fails)"
			}
			p("| %s%s | %d | %s |\n", sev, mark, sum.Severities[sev], strings.Join(parts, ", "))
		}
		p("| suppressed | %d | by the baseline, listed last |\n\n", sum.Suppressed)
		for _, sev := range Severities {
			rows := findingRows(tables, func(name string, t *Table, r []any) bool {
				return name != "failures" && !isSuppressed(t, r) && rowSeverity(t, r) == sev
			})
			if len(rows) == 0 {
				continue
			}
			p("### %s (%d)\n\n", sev, len(rows))
			findingsTable(&b, rows, summaryPerSeverity, false)
			if sev == SeverityHigh && sum.Severities[sev] > len(rows) {
				p("The other %d high row(s) are the failed receipts above.\n\n", sum.Severities[sev]-len(rows))
			}
		}
	}
	if sum.Suppressed > 0 {
		rows := findingRows(tables, func(_ string, t *Table, r []any) bool { return isSuppressed(t, r) })
		p("## Suppressed by the baseline (%d)\n\n", len(rows))
		findingsTable(&b, rows, summaryPerSeverity, true)
	}

	p("## Fingerprints per tool\n\n![Distinct tool fingerprints per tool per day](%s)\n\n", ChartFile)
	p("A grey dot is a day with one fingerprint, all as expected; a blue disc, a name two expected servers share (a known collision); a red disc or ring, a fingerprint no expected server has; an amber disc, more than one fingerprint with no expected schemas to judge them. The number is how many fingerprints.\n\n")

	p("## Finding files\n\n| finding | rows | by kind | files |\n|---|---:|---|---|\n")
	for _, f := range sum.Findings {
		var kinds []string
		if f.Name == "collisions" {
			if len(f.Kinds) > 0 {
				kinds = append(kinds, fmt.Sprintf("%d tool name(s)", len(f.Kinds)))
			}
		} else {
			for _, k := range f.Kinds {
				kinds = append(kinds, fmt.Sprintf("%s %d", mdText(k.Kind), k.Rows))
			}
		}
		p("| %s | %d | %s | [CSV](%s.csv) · [JSON Lines](%s.jsonl) |\n", f.Name, f.Rows, strings.Join(kinds, ", "), f.Name, f.Name)
	}
	p("\nWhat each finding means: collisions, a tool name seen with more than one fingerprint on the day; " +
		"drift, a fingerprint that changed within a session, a (tool, fingerprint) pair first seen on the day, " +
		"or a fingerprint no expected schema has; replays, an action_id, (issuer, nonce), signature or UndoLog " +
		"call signature seen before; failures, receipts that did not verify; rejects, lines of the day's files " +
		"that could not be read as receipts. Every row carries its severity, a finding_id that stays the same " +
		"when the day is reported again, and an event_time. The header comment of each " +
		"queries/*.sql file says exactly what it selects and why each severity.\n\n")

	p("## Inputs\n\n")
	if len(sum.Inputs) == 0 {
		p("No loaded file holds receipts of this day.\n\n")
	} else {
		p("| file | sha256 | lines | accepted | rejected | receipts on the day |\n|---|---|---:|---:|---:|---:|\n")
		for _, in := range sum.Inputs {
			p("| %s | `%s` | %d | %d | %d | %d |\n", mdText(in.Path), in.SHA256[:min(12, len(in.SHA256))], in.Lines, in.Accepted, in.Rejected, in.ReceiptsOnDay)
		}
		p("\nTheir rejected lines (unreadable, not receipts), with line and error: [rejects.csv](rejects.csv).\n\n")
	}
	p("---\nverify %s, DuckDB %s. Day window %s to %s. Query files and their SHA-256, input hashes and output hashes: [manifest.json](manifest.json).\n",
		mdText(man.ToolVersion), mdText(man.DuckDBVersion), man.Window.From, man.Window.To)
	return []byte(b.String())
}

// verdictLine is summary.md's first line: what failed, what needs action
// at which severity, and the exit status that follows.
func verdictLine(sum *ReportSummary) string {
	rc := sum.Receipts
	var b strings.Builder
	if rc.Receipts == 0 && sum.Total() == 0 {
		return "**Verdict: nothing to judge.** No receipt at all on this day, and no finding: a delivery that did not arrive looks like this. `verify report` exits 3."
	}
	if sum.Failing() > 0 {
		b.WriteString("**Verdict: action needed.** ")
	} else {
		b.WriteString("**Verdict: clean.** ")
	}
	if n := rc.Fail + rc.Incomplete; n > 0 {
		fmt.Fprintf(&b, "%d of %d receipt(s) failed verification (%d FAIL, %d INCOMPLETE); ", n, rc.Receipts, rc.Fail, rc.Incomplete)
	} else {
		fmt.Fprintf(&b, "All %d receipt(s) verified; ", rc.Receipts)
	}
	var at, below []string
	for _, sev := range Severities {
		if n := sum.Severities[sev]; n > 0 {
			if sev >= sum.FailOn {
				at = append(at, fmt.Sprintf("%d %s", n, sev))
			} else {
				below = append(below, fmt.Sprintf("%d %s", n, sev))
			}
		}
	}
	fmt.Fprintf(&b, "%d finding row(s) need action at `--fail-on %s`", sum.Failing(), sum.FailOn)
	if len(at) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(at, ", "))
	}
	if len(below) > 0 {
		fmt.Fprintf(&b, "; below it: %s", strings.Join(below, ", "))
	}
	if sum.Suppressed > 0 {
		fmt.Fprintf(&b, "; %d suppressed by the baseline", sum.Suppressed)
	}
	if sum.Failing() > 0 {
		b.WriteString(". `verify report` exits 1 (0 with `--no-fail`).")
	} else {
		b.WriteString(". `verify report` exits 0.")
	}
	return b.String()
}

// trustMaterialLine names the trust material the verdicts came from, as
// far as the database records it: the expected schemas.
func trustMaterialLine(servers []ServerTools) string {
	if len(servers) == 0 {
		return "Trust material: no expected tool schemas were loaded (`--schemas`), so no fingerprint could be judged against a declared server."
	}
	var parts []string
	for _, s := range servers {
		parts = append(parts, fmt.Sprintf("%s (%d)", mdText(s.Server), s.Tools))
	}
	return fmt.Sprintf("Trust material: expected tool schemas of %d server(s), with their tool names: %s.", len(servers), strings.Join(parts, ", "))
}

// findingRow is one finding row as summary.md lists it.
type findingRow struct {
	finding, severity, what, tool, fingerprint, where, when, suppressedBy string
}

// findingRows picks the rows of every finding table that keep says to, in
// Findings order, each in the words summary.md uses.
func findingRows(tables map[string]*Table, keep func(name string, t *Table, r []any) bool) []findingRow {
	var out []findingRow
	for _, name := range Findings {
		t := tables[name]
		for _, r := range t.Rows {
			if !keep(name, t, r) {
				continue
			}
			g := func(c string) string {
				if i := t.Col(c); i >= 0 {
					return Text(r[i])
				}
				return ""
			}
			f := findingRow{finding: name, severity: g("severity"), what: describe(name, t, r), tool: g("tool_name"),
				fingerprint: g("tool_fingerprint"), when: g("event_time"), suppressedBy: g("suppressed_by")}
			if g("line") != "" {
				f.where = cellPath(g("source")) + ":" + g("line")
			}
			out = append(out, f)
		}
	}
	return out
}

// describe says what a finding row found, in a few words.
func describe(name string, t *Table, r []any) string {
	g := func(c string) string {
		if i := t.Col(c); i >= 0 {
			return Text(r[i])
		}
		return ""
	}
	switch name {
	case "collisions":
		server := g("expected_server")
		if server == "" {
			server = "no expected server's (" + g("expected") + ")"
		}
		return fmt.Sprintf("%s fingerprints; this one: %s", g("fingerprints"), server)
	case "drift":
		what := g("kind") + ", " + g("expected")
		if s := g("expected_server"); s != "" {
			what += " (" + s + ")"
		}
		if prev := g("previous_fingerprint"); prev != "" {
			what += ", from " + shortFP(prev) + " (" + g("previous_expected") + ")"
		}
		return what
	case "replays":
		return fmt.Sprintf("%s %s, occurrence %s of %s; first at %s:%s", g("kind"), cell(g("value")), g("occurrence"), g("occurrences"), cellPath(g("first_source")), g("first_line"))
	case "failures":
		return g("verdict") + " " + g("reasons")
	case "rejects":
		return g("error")
	}
	return ""
}

// findingsTable lists up to n rows, then says where the rest are.
func findingsTable(b *strings.Builder, rows []findingRow, n int, suppressed bool) {
	if suppressed {
		b.WriteString("| finding | severity | what | tool | fingerprint | where | reason |\n|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| finding | what | tool | fingerprint | where | time |\n|---|---|---|---|---|---|\n")
	}
	files := map[string]int{}
	for i, r := range rows {
		if i >= n {
			files[r.finding]++
			continue
		}
		fp := ""
		if r.fingerprint != "" {
			fp = "`" + mdCode(shortFP(r.fingerprint)) + "`"
		}
		if suppressed {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.finding, r.severity, mdText(cell(r.what)), mdText(cell(r.tool)), fp, mdText(r.where), mdText(cell(r.suppressedBy)))
		} else {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.finding, mdText(cell(r.what)), mdText(cell(r.tool)), fp, mdText(r.where), r.when)
		}
	}
	if len(files) > 0 {
		var more []string
		for _, name := range Findings {
			if k := files[name]; k > 0 {
				more = append(more, fmt.Sprintf("%d in [%s.csv](%s.csv)", k, name, name))
			}
		}
		if len(more) == 1 {
			fmt.Fprintf(b, "\n%s more.\n", more[0])
		} else {
			fmt.Fprintf(b, "\n%d more: %s.\n", len(rows)-n, strings.Join(more, ", "))
		}
	}
	b.WriteString("\n")
}

// cell cuts a value to 60 characters for a table cell.
func cell(v string) string {
	if r := []rune(v); len(r) > 60 {
		return string(r[:59]) + "…"
	}
	return v
}

// cellPath cuts a path to its last 40 characters: its file name is what
// tells.
func cellPath(v string) string {
	if r := []rune(v); len(r) > 40 {
		return "…" + string(r[len(r)-39:])
	}
	return v
}

// shortFP is a fingerprint's first 12 characters (its algorithm prefix
// kept), enough to tell fingerprints apart in a table.
func shortFP(fp string) string {
	rest, prefix := fp, ""
	if i := strings.IndexByte(fp, ':'); i >= 0 && i < 12 {
		prefix, rest = fp[:i+1], fp[i+1:]
	}
	if r := []rune(rest); len(r) > 12 {
		return prefix + string(r[:12]) + "…"
	}
	return fp
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "\r", " ", "\n", " ")

// mdText escapes s for a Markdown table cell: values come from receipts
// and are not trusted to be plain. Control and format characters become
// escapes first (termtext), so the report is safe to read in a terminal.
func mdText(s string) string { return mdEscaper.Replace(termtext.Escape(s)) }

// mdCode is s for inside a code span: without backticks, line breaks or
// characters a terminal would act on.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", `\|`).Replace(termtext.Escape(s))
}

// manifestTrust reads trust.sql's rows.
func manifestTrust(t *Table) []ManifestTrust {
	out := []ManifestTrust{}
	files := func(v any) []TrustFile {
		fs := []TrustFile{}
		json.Unmarshal([]byte(Text(v)), &fs)
		return fs
	}
	for _, r := range t.Rows {
		g := func(c string) any { return r[t.Col(c)] }
		mt := ManifestTrust{TrustSHA256: Text(g("trust_sha256")), KeyFiles: files(g("key_files")), SchemaFiles: files(g("schema_files")),
			ToolVersion: Text(g("tool_version")), Receipts: asInt(g("receipts"))}
		if at, ok := g("judged_at").(time.Time); ok {
			mt.JudgedAt = at.UTC().Format(time.RFC3339Nano)
		}
		mt.StrictSchemas, _ = g("strict_schemas").(bool)
		out = append(out, mt)
	}
	return out
}

// trustSummary is summary.md's line on the trust material the day's
// verdicts came from (the manifest lists it whole).
func trustSummary(ts []ManifestTrust) string {
	describe := func(t ManifestTrust) string {
		if t.TrustSHA256 == "" {
			return "unrecorded (loaded before provenance was kept)"
		}
		at := "the clock of the load"
		if t.JudgedAt != "" {
			at = t.JudgedAt
		}
		strict := ""
		if t.StrictSchemas {
			strict = ", strict schemas"
		}
		return fmt.Sprintf("`%s` (%d key file(s), %d schema file(s), judged at %s%s, verify %s)",
			t.TrustSHA256[:min(12, len(t.TrustSHA256))], len(t.KeyFiles), len(t.SchemaFiles), at, strict, mdText(t.ToolVersion))
	}
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return "Verdicts from trust material " + describe(ts[0]) + "; its files and hashes are in manifest.json.\n\n"
	}
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = fmt.Sprintf("%s for %d receipt(s)", describe(t), t.Receipts)
	}
	return fmt.Sprintf("Verdicts from %d sets of trust material: %s; their files and hashes are in manifest.json.\n\n", len(ts), strings.Join(parts, "; "))
}

// hasTrust reports whether the database records trust material: one
// written before it did, opened without its schema brought up to date (read
// only), has no trust table to ask.
func hasTrust(ctx context.Context, q Querier) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT count(*) FROM information_schema.columns
		WHERE (table_name = 'trust' AND column_name = 'trust_sha256') OR (table_name = 'receipts' AND column_name = 'trust_sha256')`)
	if err != nil {
		return false, &IOError{Op: "read schema", Err: err}
	}
	defer rows.Close()
	var n int
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	if err != nil {
		return false, &IOError{Op: "read schema", Err: err}
	}
	return n == 2, nil
}
