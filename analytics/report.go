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

// ReportOptions say which day to report and where.
type ReportOptions struct {
	Day         string // YYYY-MM-DD, UTC
	Dir         string // created if missing
	ToolVersion string // recorded in manifest.json and summary.md
}

// Report file names in the output directory, besides <finding>.csv and
// <finding>.jsonl for each of Findings.
const (
	SummaryFile  = "summary.md"
	ManifestFile = "manifest.json"
	ChartFile    = "fingerprints.svg"
)

// ReportSummary is what a report found.
type ReportSummary struct {
	Day      string
	Dir      string
	Receipts DayCounts       // the day's receipts
	Findings []FindingCount  // one per Findings entry, in that order
	Files    []string        // names written in Dir, in write order
	Inputs   []ManifestInput // the day's files (files.sql): those holding its receipts, and those with none loaded on it
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
// rejects: none).
type FindingCount struct {
	Name  string
	Rows  int
	Kinds []KindCount // sorted by kind
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
	Outputs       []ManifestOutput       `json:"outputs"`
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
// <finding>.jsonl for each of Findings, the chart (fingerprints.svg, the
// ChartDays days up to the day), summary.md and manifest.json. Every file
// is written to a temporary name in Dir and renamed, and nothing depends
// on the clock, so reporting the same day of the same data again gives the
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
	sum := &ReportSummary{Day: opts.Day, Dir: opts.Dir}
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
		fc := FindingCount{Name: name, Rows: len(t.Rows), Kinds: kindCounts(name, t)}
		sum.Findings = append(sum.Findings, fc)
		man.Findings[name] = fc.Rows
		man.FindingKinds[name] = fc.Kinds
		if man.FindingKinds[name] == nil {
			man.FindingKinds[name] = []KindCount{}
		}
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
	var tds []ToolDay
	for _, r := range toolDays.Rows {
		tds = append(tds, ToolDay{Tool: Text(r[0]), Day: Text(r[1]), Fingerprints: asInt(r[2]), Receipts: asInt(r[3])})
	}
	if err := write(ChartFile, FingerprintChart(day, ChartDays, tds)); err != nil {
		return nil, err
	}
	if err := write(SummaryFile, summaryMarkdown(sum, man, tables)); err != nil {
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

// summaryMarkdown is summary.md, what a person reads first.
func summaryMarkdown(sum *ReportSummary, man *Manifest, tables map[string]*Table) []byte {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Receipt report for %s (UTC)\n\n", sum.Day)
	rc := sum.Receipts
	p("Receipts of the day: **%d** (%d pass, %d fail, %d incomplete), from %d input file(s).\n\n",
		rc.Receipts, rc.Pass, rc.Fail, rc.Incomplete, len(sum.Inputs))
	b.WriteString(trustSummary(man.Trust))
	if rc.Undated > 0 {
		p("%d of them carry no issued_at (UndoLog rows, Overturn entries, or an unreadable time) and count on this day because they were loaded on it.\n\n", rc.Undated)
	}
	if total := sum.Total(); total == 0 {
		p("**No findings.** `verify report` exits 0 for this day.\n\n")
	} else {
		p("**%d finding row(s).** `verify report` exits 1 for this day (0 with `--no-fail`).\n\n", total)
	}

	p("| finding | rows | by kind | files |\n|---|---:|---|---|\n")
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
		"that could not be read as receipts. The header comment of each " +
		"queries/*.sql file says exactly what it selects.\n\n")

	p("## Fingerprints per tool, last %d days\n\n![Distinct tool fingerprints per tool per day](%s)\n\n", ChartDays, ChartFile)
	p("A red disc is a day on which the tool name carried more than one fingerprint; the number is how many.\n\n")

	if t := tables["collisions"]; len(t.Rows) > 0 {
		p("## Top collisions\n\n")
		collisionTable(&b, t, 10)
	}
	if t := tables["drift"]; len(t.Rows) > 0 {
		p("## Drift\n\n")
		rowsTable(&b, t, []string{"kind", "tool_name", "tool_fingerprint", "previous_fingerprint", "expected", "receipts", "first_seen", "agent_id", "session_id"}, 15, "drift.csv")
	}
	if t := tables["replays"]; len(t.Rows) > 0 {
		p("## Replays\n\n")
		rowsTable(&b, t, []string{"kind", "value", "occurrence", "issued_at", "source", "line", "first_source", "first_line"}, 15, "replays.csv")
	}
	if f := sum.Findings[slices.IndexFunc(sum.Findings, func(f FindingCount) bool { return f.Name == "failures" })]; f.Rows > 0 {
		p("## Failures by reason\n\n| reasons | receipts |\n|---|---:|\n")
		kinds := slices.Clone(f.Kinds)
		slices.SortStableFunc(kinds, func(a, b KindCount) int { return cmp.Compare(b.Rows, a.Rows) })
		for _, k := range kinds {
			p("| %s | %d |\n", mdText(k.Kind), k.Rows)
		}
		p("\nEvery failed receipt, with its file and line: [failures.csv](failures.csv).\n\n")
	}
	if t := tables["rejects"]; len(t.Rows) > 0 {
		p("## Rejected lines\n\n")
		rowsTable(&b, t, []string{"source", "line", "error"}, 15, "rejects.csv")
	}

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

// collisionTable lists up to n tool names, most fingerprints first, one
// line per fingerprint.
func collisionTable(b *strings.Builder, t *Table, n int) {
	type group struct {
		name     string
		fps      int64
		receipts int64
		rows     [][]any
	}
	var groups []*group
	idx := map[string]*group{}
	for _, r := range t.Rows {
		name := Text(r[t.Col("tool_name")])
		g := idx[name]
		if g == nil {
			g = &group{name: name, fps: asInt(r[t.Col("fingerprints")])}
			idx[name] = g
			groups = append(groups, g)
		}
		g.receipts += asInt(r[t.Col("receipts")])
		g.rows = append(g.rows, r)
	}
	slices.SortStableFunc(groups, func(a, b *group) int {
		if c := cmp.Compare(b.fps, a.fps); c != 0 {
			return c
		}
		if c := cmp.Compare(b.receipts, a.receipts); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	fmt.Fprintf(b, "| tool | fingerprints | fingerprint | expected server | receipts | agents | first seen | last seen |\n|---|---:|---|---|---:|---:|---|---|\n")
	for _, g := range groups[:min(n, len(groups))] {
		for i, r := range g.rows {
			name, fps := "", ""
			if i == 0 {
				name, fps = mdText(g.name), fmt.Sprint(g.fps)
			}
			server := Text(r[t.Col("expected_server")])
			if server == "" {
				server = "none (" + Text(r[t.Col("expected")]) + ")"
			}
			fmt.Fprintf(b, "| %s | %s | `%s` | %s | %d | %d | %s | %s |\n", name, fps, mdCode(Text(r[t.Col("tool_fingerprint")])),
				mdText(server), asInt(r[t.Col("receipts")]), asInt(r[t.Col("agents")]), Text(r[t.Col("first_seen")]), Text(r[t.Col("last_seen")]))
		}
	}
	if len(groups) > n {
		fmt.Fprintf(b, "\n%d more tool name(s) in [collisions.csv](collisions.csv).\n", len(groups)-n)
	}
	b.WriteString("\n")
}

// rowsTable lists the first n rows of t in the given columns.
func rowsTable(b *strings.Builder, t *Table, cols []string, n int, file string) {
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range t.Rows[:min(n, len(t.Rows))] {
		b.WriteString("|")
		for _, c := range cols {
			v := Text(r[t.Col(c)])
			if r := []rune(v); len(r) > 40 {
				if strings.HasSuffix(c, "source") { // a path: its file name is what tells
					v = "…" + string(r[len(r)-39:])
				} else {
					v = string(r[:39]) + "…"
				}
			}
			b.WriteString(" " + mdText(v) + " |")
		}
		b.WriteString("\n")
	}
	if len(t.Rows) > n {
		fmt.Fprintf(b, "\n%d more row(s) in [%s](%s).\n", len(t.Rows)-n, file, file)
	} else {
		fmt.Fprintf(b, "\nAll columns: [%s](%s).\n", file, file)
	}
	b.WriteString("\n")
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
