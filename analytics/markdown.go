package analytics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/baseline"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/analytics/table"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/queries"
)

// Summary caps: rows listed per section before "N more in <file>".
const (
	summaryFailures    = 20
	summaryPerSeverity = 15
)

// summaryMarkdown is summary.md, what a person reads first: the verdict,
// the failed receipts, the other findings by severity, the suppressed
// ones, then the chart, the files and the inputs.
func summaryMarkdown(sum *ReportSummary, man *manifest, tables map[string]*table.Table, servers []serverTools) []byte {
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	p("# Receipt report for %s (UTC)\n\n", sum.Day)
	p("%s\n\n", verdictLine(sum))
	p("%s\n\n", trustMaterialLine(servers))
	rc := sum.Receipts
	p("Receipts of the day: **%d** (%d pass, %d fail, %d incomplete), from %d input file(s).", rc.Receipts, rc.Pass, rc.Fail, rc.Incomplete, len(sum.Inputs))
	if rc.UnknownFormat > 0 {
		p(" %d receipt(s) of a format this tool does not read: not checked, counted among the incomplete and apart from the failures.", rc.UnknownFormat)
	}
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
			g := func(c string) string { return table.Text(r[failures.Col(c)]) }
			p("| %s | %s | %s | %s | %s | %s |\n", mdText(cellPath(g("source"))+":"+g("line")), mdText(g("verdict")), mdText(g("reasons")), mdText(cell(g("tool_name"))), mdText(cell(g("action_id"))), mdText(g("issued_at")))
		}
		if n := len(failures.Rows) - summaryFailures; n > 0 {
			p("\n%d more in [failures.csv](failures.csv).\n", n)
		}
		p("\nBy reason: ")
		f := sum.Findings[slices.IndexFunc(sum.Findings, func(f findingCount) bool { return f.Name == "failures" })]
		kinds := slices.Clone(f.Kinds)
		slices.SortStableFunc(kinds, func(a, b kindCount) int { return cmp.Compare(b.Rows, a.Rows) })
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
		for _, sev := range severity.All() {
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
		for _, sev := range severity.All() {
			rows := findingRows(tables, func(name string, t *table.Table, r []any) bool {
				return name != "failures" && !baseline.IsSuppressed(t, r) && t.RowSeverity(r) == sev
			})
			if len(rows) == 0 {
				continue
			}
			p("### %s (%d)\n\n", sev, len(rows))
			findingsTable(&b, summaryRows(rows), summaryPerSeverity, false)
			if sev == severity.High && sum.Severities[sev] > len(rows) {
				p("The other %d high row(s) are the failed receipts above.\n\n", sum.Severities[sev]-len(rows))
			}
		}
	}
	if sum.Suppressed > 0 {
		rows := findingRows(tables, func(_ string, t *table.Table, r []any) bool { return baseline.IsSuppressed(t, r) })
		p("## Suppressed by the baseline (%d)\n\n", len(rows))
		findingsTable(&b, summaryRows(rows), summaryPerSeverity, true)
	}

	if t := tables["completeness"]; t != nil && len(t.Rows) > 0 {
		p("## Completeness (%d chains)\n\n", len(t.Rows))
		p("Whether the archive holds the whole of each chain whose last receipt is on the day, from the signed evidence of its producer (session lifecycle records, terminal receipts) and checkpoints: truncated when signed evidence names more than is held or a head the archive's receipt does not have, interrupted when the chain stops without its close. Chains with no such evidence are not listed. A transparency log whose checkpoints of this and earlier loads differ is listed too: split_view when it signed two roots for one size, inconsistent when a consistency proof fails, rollback when a smaller tree follows a larger one, unknown when no proof links its tree heads (consistency not checked).\n\n")
		p("| status | chain | held | evidence |\n|---|---|---|---|\n")
		for _, r := range t.Rows {
			g := func(c string) string {
				if i := t.Col(c); i >= 0 {
					return table.Text(r[i])
				}
				return ""
			}
			p("| %s | %s %s | %s | %s |\n", mdText(g("status")), mdText(cell(g("format"))), mdCode(shortFP(g("chain_scope"))),
				mdText(completenessHeld(g)), mdText(g("evidence")))
		}
		p("\n")
	}

	p("## Fingerprints per tool\n\n![Distinct tool fingerprints per tool per day](%s)\n\n", chartFile)
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
		"that could not be read as receipts; completeness, a chain's completeness verdict where signed evidence gives one " +
		"(truncated, interrupted, open, complete), and a transparency log's checkpoints held to those of earlier loads " +
		"(split_view, inconsistent, rollback, unknown, consistent). Every row carries its severity, a finding_id that stays the same " +
		"when the day is reported again, and an event_time. The header comment of each " +
		"queries/*.sql file says exactly what it selects and why each severity.\n\n")

	p("## Inputs\n\n")
	if len(sum.Inputs) == 0 {
		p("No loaded file holds receipts of this day.\n\n")
	} else {
		p("| file | sha256 | lines | accepted | rejected | re-delivered | receipts on the day |\n|---|---|---:|---:|---:|---:|---:|\n")
		for _, in := range sum.Inputs {
			p("| %s | `%s` | %d | %d | %d | %d | %d |\n", mdText(in.Path), in.SHA256[:min(12, len(in.SHA256))], in.Lines, in.Accepted, in.Rejected, in.Redelivered, in.ReceiptsOnDay)
		}
		p("\nTheir rejected lines (unreadable, not receipts), with line and error: [rejects.csv](rejects.csv). " +
			"Re-delivered lines were stored before from another file: counted, not stored again, not judged replays.\n\n")
	}
	if len(sum.Late) > 0 {
		p("## Late deliveries\n\nReceipts of this day loaded after a report of it was written: that report did not judge them.\n\n| file | sha256 | receipts | not PASS | loaded at | after the report of |\n|---|---|---:|---:|---|---|\n")
		for _, l := range sum.Late {
			p("| %s | `%s` | %d | %d | %s | %s |\n", mdText(l.Source), l.SHA256[:min(12, len(l.SHA256))], l.Receipts, l.NotPass, l.LoadedAt.Format(time.RFC3339), l.ReportedAt.Format(time.RFC3339))
		}
		p("\n")
	}
	if len(man.NotRead) > 0 {
		p("Not read: %d file(s) the input directories held, as their names are not those of receipt files or --exclude named them (`--include GLOB` reads others):\n\n", len(man.NotRead))
		for _, name := range man.NotRead {
			p("- %s\n", mdText(name))
		}
		p("\n")
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
	if n := rc.Fail + rc.Incomplete - rc.UnknownFormat; n > 0 {
		fmt.Fprintf(&b, "%d of %d receipt(s) failed verification (%d FAIL, %d INCOMPLETE); ", n, rc.Receipts, rc.Fail, rc.Incomplete-rc.UnknownFormat)
	} else if rc.UnknownFormat < rc.Receipts {
		fmt.Fprintf(&b, "All %d receipt(s) of a format this tool reads verified; ", rc.Receipts-rc.UnknownFormat)
	}
	if rc.UnknownFormat > 0 {
		fmt.Fprintf(&b, "%d receipt(s) of a format this tool does not read (not checked); ", rc.UnknownFormat)
	}
	var at, below []string
	for _, sev := range severity.All() {
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
func trustMaterialLine(servers []serverTools) string {
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
	// Of collisions and drift: the kind, and what the schemas say of the
	// fingerprint, for a summary row (summaryRows).
	kind, expected string
	rows           map[string]int // the rows it stands for, by finding
	summary        bool           // a summary row: its what, a list of kinds, is not cut
}

// findingRows picks the rows of every finding table that keep says to, in
// Findings order, each in the words summary.md uses.
func findingRows(tables map[string]*table.Table, keep func(name string, t *table.Table, r []any) bool) []findingRow {
	var out []findingRow
	for _, name := range queries.Findings() {
		t := tables[name]
		for _, r := range t.Rows {
			if !keep(name, t, r) {
				continue
			}
			g := func(c string) string {
				if i := t.Col(c); i >= 0 {
					return table.Text(r[i])
				}
				return ""
			}
			f := findingRow{finding: name, severity: g("severity"), what: describe(name, t, r), tool: g("tool_name"),
				fingerprint: g("tool_fingerprint"), when: g("event_time"), suppressedBy: g("suppressed_by"),
				kind: g("kind"), expected: expectedOf(g("expected"), g("expected_server")), rows: map[string]int{name: 1}}
			if name == "collisions" {
				f.kind = "collision (" + g("fingerprints") + " fingerprints)"
			}
			if g("line") != "" {
				f.where = cellPath(g("source")) + ":" + g("line")
			}
			out = append(out, f)
		}
	}
	return out
}

// describe says what a finding row found, in a few words.
func describe(name string, t *table.Table, r []any) string {
	g := func(c string) string {
		if i := t.Col(c); i >= 0 {
			return table.Text(r[i])
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
	case "completeness":
		return completenessWhat(g)
	}
	return ""
}

// completenessWhat says what a completeness row found: the verdict, then
// completenessHeld.
func completenessWhat(g func(string) string) string {
	if g("format") == logCheckpointFormat {
		return fmt.Sprintf("%s transparency log %s: %s", g("status"), shortFP(g("chain_scope")), completenessHeld(g))
	}
	return fmt.Sprintf("%s %s chain %s: %s", g("status"), cell(g("format")), shortFP(g("chain_scope")), completenessHeld(g))
}

// logCheckpointFormat is the format of a completeness row that judges a
// transparency log's checkpoints rather than a chain.
const logCheckpointFormat = "c2sp-checkpoint"

// completenessHeld says what the archive holds of a chain and what its
// evidence names; of a transparency log, the tree heads it signed and
// what decided.
func completenessHeld(g func(string) string) string {
	if g("format") == logCheckpointFormat {
		return g("held") + " tree heads signed (" + g("first_seq") + " to " + g("head_seq") + " leaves); " + strings.ReplaceAll(g("evidence"), "_", " ")
	}
	held := "nothing held"
	if g("held") != "0" {
		held = "holds " + g("held") + " (" + g("first_seq") + " to " + g("head_seq") + ")"
	}
	return held + "; " + g("evidence") + " names " + g("claimed_seq")
}

// findingsTable lists up to n rows, then says where the rest are.
func findingsTable(b *strings.Builder, rows []findingRow, n int, suppressed bool) {
	if suppressed {
		b.WriteString("| finding | severity | what | tool | fingerprint | where | reason |\n|---|---|---|---|---|---|---|\n")
	} else {
		b.WriteString("| finding | what | tool | fingerprint | where | time |\n|---|---|---|---|---|---|\n")
	}
	files, left := map[string]int{}, 0
	for i, r := range rows {
		if i >= n {
			for name, k := range r.rows {
				files[name] += k
				left += k
			}
			continue
		}
		fp := ""
		if r.fingerprint != "" {
			fp = "`" + mdCode(shortFP(r.fingerprint)) + "`"
		}
		what := cell(r.what)
		if r.summary {
			what = r.what
		}
		if suppressed {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", r.finding, r.severity, mdText(what), mdText(cell(r.tool)), fp, mdText(r.where), mdText(cell(r.suppressedBy)))
		} else {
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", r.finding, mdText(what), mdText(cell(r.tool)), fp, mdText(r.where), mdText(r.when))
		}
	}
	if len(files) > 0 {
		var more []string
		for _, name := range queries.Findings() {
			if k := files[name]; k > 0 {
				more = append(more, fmt.Sprintf("%d in [%s.csv](%s.csv)", k, name, name))
			}
		}
		if len(more) == 1 {
			fmt.Fprintf(b, "\n%s more.\n", more[0])
		} else {
			fmt.Fprintf(b, "\n%d more: %s.\n", left, strings.Join(more, ", "))
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

// mdEscaper escapes what Markdown acts on. & is one: "&#x202E;" in a tool
// name would become a real right-to-left override in summary.html, and
// "&lt;script&gt;" would show as <script>.
var mdEscaper = strings.NewReplacer("&", "&amp;", `\`, `\\`, "|", `\|`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "\r", " ", "\n", " ")

// mdText escapes s for a Markdown table cell: values come from receipts
// and are not trusted to be plain. Control and format characters become
// escapes first (termtext), so the report is safe to read in a terminal.
func mdText(s string) string { return mdEscaper.Replace(termtext.Escape(s)) }

// mdCode is s for inside a code span: without backticks, line breaks or
// characters a terminal would act on.
func mdCode(s string) string {
	return strings.NewReplacer("`", "'", "|", `\|`).Replace(termtext.Escape(s))
}
