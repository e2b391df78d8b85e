package main

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/evidence"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/queries"
	"github.com/receiptverify/verify/verify"
	"github.com/urfave/cli/v2"
)

func newEvidenceCommand() *cli.Command {
	return &cli.Command{
		Name:  "evidence",
		Usage: "pack the failures of a period, with what explains them, into one file that travels",
		Description: "Writes PACK.tar.gz: the exact lines of every receipt of the days that is not PASS or that\n" +
			"a finding row names, with their chain neighbours; the key and schema files their loads\n" +
			"recorded (stored in the database); the finding queries; the last reports of the days\n" +
			"(report_runs), with index.md and the attestation beside them when found; and pack.json,\n" +
			"which names every entry by SHA-256. verify explain --pack PACK FILE:LINE explains a\n" +
			"receipt from the pack alone, on any machine (docs/handover.md).\n\n" +
			"Exit codes: 0 written, 64 usage, 66 the database cannot be read, 74 the database could\n" +
			"not be queried or PACK not written.",
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`"},
			&cli.StringFlag{Name: "day", Usage: "UTC `DAY` (YYYY-MM-DD)"},
			&cli.StringFlag{Name: "from", Usage: "first UTC `DAY` of the period"},
			&cli.StringFlag{Name: "to", Usage: "last UTC `DAY` of the period"},
		}, dbLimitFlags()...),
		Action: evidenceAction,
	}
}

func evidenceAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	if err := requireFlags(ctx, "db"); err != nil {
		return err
	}
	out := ctx.String("output")
	if out == "" {
		return usagef(ctx, "want -o PACK.tar.gz (- for stdout)")
	}
	from, to := ctx.String("from"), ctx.String("to")
	switch d := ctx.String("day"); {
	case d != "" && (from != "" || to != ""):
		return usagef(ctx, "give --day or --from and --to, not both")
	case d != "":
		from, to = d, d
	case from == "" || to == "":
		return usagef(ctx, "want --day DAY, or --from DAY and --to DAY")
	}
	for _, d := range []string{from, to} {
		if _, err := queries.ParseDay(d); err != nil {
			return usagef(ctx, "%v", err)
		}
	}
	if to < from {
		return usagef(ctx, "--to %s is before --from %s", to, from)
	}
	dbPath := ctx.String("db")
	db, err := openExistingDB(ctx, dbPath)
	if err != nil {
		return err
	}
	defer db.Close()
	bg := runContext(ctx)
	rows, days, err := db.Evidence(bg, from, to)
	if err != nil {
		return err
	}
	w := evidence.NewWriter()
	m := evidence.Manifest{ToolVersion: version(), From: from, To: to, Days: days, Database: dbPath,
		Receipts: []evidence.Receipt{}, Trust: []evidence.Trust{}}
	if m.Days == nil {
		m.Days = []string{}
	}
	trusts := map[string]bool{}
	missing := 0
	for _, r := range rows {
		pr := evidence.Receipt{Source: r.Source, Line: r.Line, Day: r.Day, Verdict: r.Verdict, Reasons: r.Reasons,
			ActionID: r.ActionID, TrustSHA256: r.Trust, FileSHA256: r.File, Role: r.Role,
			PreviousHash: r.PreviousHash, ChainHash: r.ChainHash, Missing: r.Missing}
		if r.Raw != nil {
			pr.LineFile = w.AddBlob("lines", r.Raw)
		} else {
			missing++
		}
		for _, f := range r.Findings {
			pr.Findings = append(pr.Findings, evidence.Finding{Finding: f.Query, Row: f.Row})
		}
		m.Receipts = append(m.Receipts, pr)
		if r.Trust == "" || trusts[r.Trust] {
			continue
		}
		trusts[r.Trust] = true
		t, err := db.TrustOf(bg, r.Trust, r.File)
		if err != nil {
			continue // no material recorded: explain --pack says so
		}
		pt := evidence.Trust{TrustSHA256: r.Trust, StrictSchemas: t.StrictSchemas, Keys: []evidence.TrustFile{}, Schemas: []evidence.TrustFile{}}
		if !t.At.IsZero() {
			pt.At = t.At.Format(time.RFC3339Nano)
		}
		if !t.JudgedAt.IsZero() {
			pt.JudgedAt = t.JudgedAt.Format(time.RFC3339Nano)
		}
		files := func(fs []analytics.TrustFile) ([]evidence.TrustFile, error) {
			out := []evidence.TrustFile{}
			for _, f := range fs {
				tf := evidence.TrustFile{Path: f.Path, SHA256: f.SHA256}
				b, ok, err := db.TrustContent(bg, f.SHA256)
				if err != nil {
					return nil, err
				}
				if !ok { // a database written before contents were stored
					if data, err := readSmallFile(f.Path); err == nil && analytics.TrustFileOf(f.Path, data).SHA256 == f.SHA256 {
						b, ok = data, true
					}
				}
				if ok {
					tf.File = w.AddBlob("trust", b)
				} else {
					fmt.Fprintf(ctx.App.ErrWriter, "verify: evidence: %s (SHA-256 %s) is neither in the database nor at its path: left out\n", termtext.Escape(f.Path), f.SHA256)
				}
				out = append(out, tf)
			}
			return out, nil
		}
		if pt.Keys, err = files(t.Keys); err != nil {
			return err
		}
		if pt.Schemas, err = files(t.Schemas); err != nil {
			return err
		}
		m.Trust = append(m.Trust, pt)
	}
	for _, name := range queries.Findings() {
		text, err := fsRead("queries/" + name + ".sql")
		if err != nil {
			return err
		}
		w.Add("queries/"+name+".sql", text)
	}
	dirs, err := db.ReportDirs(bg, days)
	if err != nil {
		return err
	}
	reports := 0
	beside := map[string]bool{}
	for _, day := range days {
		dir, ok := dirs[day]
		if !ok {
			continue
		}
		if n := addTree(w, dir, "reports/"+day); n > 0 {
			reports++
			beside[filepath.Dir(dir)] = true
		}
	}
	// The run's index, cross-day lists and attestation, beside the days.
	for parent := range beside {
		for _, name := range []string{analytics.IndexFile, analytics.IndexHTMLFile, analytics.AllFailuresFile, "failures.jsonl", "verify.intoto.json"} {
			if b, err := os.ReadFile(filepath.Join(parent, name)); err == nil {
				w.Add("reports/"+name, b)
			}
		}
	}
	// -o replaces the pack whole, or leaves it as it was if the run fails.
	if err := w.WriteTo(ctx.App.Writer, m, time.Unix(0, 0)); err != nil {
		return err
	}
	failing := 0
	for _, r := range rows {
		if r.Role != "neighbour" {
			failing++
		}
	}
	fmt.Fprintf(ctx.App.ErrWriter, "verify: evidence: %s: %d failing or flagged receipt(s) and %d chain neighbour(s) of %d day(s), %d trust set(s), %d day report(s)\n",
		out, failing, len(rows)-failing, len(days), len(m.Trust), reports)
	if missing > 0 {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: evidence: %d line(s) left in archive files that cannot be read now: listed without their bytes\n", missing)
	}
	return nil
}

// addTree adds the regular files of dir to w under prefix, and returns
// how many; a directory that cannot be read adds none.
func addTree(w *evidence.Writer, dir, prefix string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		w.Add(prefix+"/"+filepath.ToSlash(rel), b)
		n++
		return nil
	})
	return n
}

// readPack reads and checks an evidence pack.
func readPack(path string) (*evidence.Pack, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{err}
	}
	defer f.Close()
	return evidence.Read(f)
}

// explainFromPack is explain --pack: the receipt at FILE:LINE (as
// loaded) or with ACTION_ID, judged again from its line in the pack with
// the trust material the pack carries for its load (unless trust flags
// are given), its chain neighbours and finding rows as the pack has them.
func explainFromPack(ctx *cli.Context, packPath, arg string) (*explanation, error) {
	p, err := readPack(packPath)
	if err != nil {
		return nil, err
	}
	path, line, perr := splitPathLine(arg)
	var found *evidence.Receipt
	for i, r := range p.Manifest.Receipts {
		if (perr == nil && (r.Source == path || r.Source == filepath.Clean(path)) && r.Line == int64(line)) || (r.ActionID != "" && r.ActionID == arg) {
			found = &p.Manifest.Receipts[i]
			break
		}
	}
	if found == nil {
		return nil, usagef(ctx, "%s: no receipt at FILE:LINE or with action_id %q", packPath, arg)
	}
	if found.LineFile == "" {
		return nil, &inputError{fmt.Errorf("%s: %s:%d is listed without its line: %s", packPath, found.Source, found.Line, found.Missing)}
	}
	given := slices.ContainsFunc(trustFlagNames, ctx.IsSet)
	judgedWith := "the trust flags given"
	if !given {
		judgedWith = "no trust material (the pack carries none for its load)"
		for _, t := range p.Manifest.Trust {
			if t.TrustSHA256 != found.TrustSHA256 {
				continue
			}
			stored := storedTrust{}
			ctx.App.Metadata[storedTrustKey] = stored
			use := func(flag string, files []evidence.TrustFile) error {
				for _, f := range files {
					if f.File == "" {
						fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s (SHA-256 %s) is not in the pack: judged without it\n", termtext.Escape(f.Path), f.SHA256)
						continue
					}
					stored[f.Path] = p.Entries[f.File]
					if err := ctx.Set(flag, f.Path); err != nil {
						return usagef(ctx, "--%s: %v", flag, err)
					}
				}
				return nil
			}
			if err := use("keys", t.Keys); err != nil {
				return nil, err
			}
			if err := use("schemas", t.Schemas); err != nil {
				return nil, err
			}
			if t.JudgedAt != "" {
				if err := ctx.Set("at", t.JudgedAt); err != nil {
					return nil, usagef(ctx, "--at: %v", err)
				}
			}
			if t.StrictSchemas {
				if err := ctx.Set("strict-schemas", "true"); err != nil {
					return nil, usagef(ctx, "--strict-schemas: %v", err)
				}
			}
			judgedWith = fmt.Sprintf("the %d key and %d schema file(s) the pack carries for its load", len(t.Keys), len(t.Schemas))
			if t.JudgedAt != "" {
				judgedWith += ", at " + t.JudgedAt
			}
		}
	}
	row := analytics.LoadedReceipt{Source: found.Source, Line: found.Line, Verdict: found.Verdict, Reasons: found.Reasons,
		Day: found.Day, Raw: p.Entries[found.LineFile], ActionID: found.ActionID, Trust: found.TrustSHA256, File: found.FileSHA256}
	ex, err := explainRaw(ctx, row)
	if err != nil {
		return nil, err
	}
	// The chain and nonce judgments rest on the whole archive, which the
	// pack does not carry: they are the load's, read back from its reasons.
	var earlier []verify.Reason
	for _, r := range strings.Split(found.Reasons, ",") {
		if r != "" {
			earlier = append(earlier, verify.Reason(r))
		}
	}
	streamrun.Rejudge(ex.res, earlier)
	ex.Result = ex.res.AppendJSON(nil)
	ex.Context = "the line in evidence pack " + packPath + ": chain and nonce as loaded; " + judgedWith
	ex.Loaded = &loadedRow{Source: row.Source, Line: int(row.Line), Verdict: row.Verdict, Reasons: row.Reasons, Day: row.Day}
	if c := ex.Chain; c != nil {
		c.Predecessor, c.Successors = []neighbour{}, []neighbour{}
		for _, r := range p.Manifest.Receipts {
			if r.Source == found.Source && r.Line == found.Line {
				continue
			}
			n := neighbour{Source: r.Source, Line: int(r.Line), Verdict: r.Verdict, ActionID: r.ActionID}
			if found.PreviousHash != "" && r.ChainHash == found.PreviousHash {
				c.Predecessor = append(c.Predecessor, n)
			}
			if found.ChainHash != "" && r.PreviousHash == found.ChainHash {
				c.Successors = append(c.Successors, n)
			}
		}
		c.InDB = true
	}
	for _, f := range found.Findings {
		ex.Findings = append(ex.Findings, findingRow{Finding: f.Finding, Row: f.Row})
	}
	ex.Replays = replaysOf(ex.Findings)
	return ex, nil
}
