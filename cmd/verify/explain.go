package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/verify"
	"github.com/urfave/cli/v2"
)

func newExplainCommand() *cli.Command {
	return &cli.Command{
		Name:      "explain",
		Usage:     "explain the verdict of one receipt, judged with its whole file (or database) as context",
		ArgsUsage: "PATH:LINE | --db FILE PATH:LINE|ACTION_ID",
		Description: "PATH:LINE is a receipt file and the line of the receipt in it (1 for a .json file).\n" +
			"The whole file is verified, as verify receipts does, so that the chain and nonce\n" +
			"judgments are those of the file; the page then shows that receipt: its format and\n" +
			"verdict, every axis with its status, reason and note, the key that was used and where\n" +
			"it was loaded from, the exact bytes the signature covers, its chain neighbours (the\n" +
			"lines it links to and that link to it) and its normalized fields.\n\n" +
			"With --db, FILE:LINE (the path as loaded, as verify show takes it) or ACTION_ID is\n" +
			"looked up in an audit database (verify load, verify audit): the receipt is judged\n" +
			"again from the line stored there, with the key and schema files and the --at its load\n" +
			"recorded (each file's SHA-256 checked; a warning when one changed or is gone) unless\n" +
			"trust flags are given; its verdict as loaded is shown beside, and so are the finding\n" +
			"rows of its day that name it and the line a replay repeats. A FILE:LINE the database\n" +
			"does not hold is judged from the file (so a db set in verify.toml does not hide it).\n" +
			"--lake DIR looks it up in a sharded run's tables the same way (verify report --lake).\n" +
			"With --pack, FILE:LINE or ACTION_ID is looked up in an evidence pack (verify evidence)\n" +
			"and judged from the pack alone: its line, the trust material it carries, its chain\n" +
			"neighbours and finding rows as packed.\n\n" +
			"Exit codes: 0 the receipt is PASS, 1 FAIL or unreadable, 2 INCOMPLETE, 64 usage or\n" +
			"no such line or action_id, 65 a pack that does not match its pack.json, 66 the file, a key or schema file or the database could\n" +
			"not be read, 74 the temporary spool or stdout failed.",
		Flags: append(trustFlags(withPredecessor, schemasUsage),
			&cli.StringFlag{Name: "db", Usage: "audit database `FILE`: explain the receipt with this ACTION_ID"},
			&cli.StringFlag{Name: "pack", Usage: "evidence pack `FILE` (verify evidence): explain a receipt from the pack alone"},
			formatFlag("text", "json"),
			lakeFlags()[0], lakeFlags()[1],
		),
		Action: explainAction,
	}
}

// explanation is the page, and its JSON form (--format json).
type explanation struct {
	Result   json.RawMessage `json:"result"` // as verify receipts --format jsonl writes it
	Signed   *signedBytes    `json:"signed,omitempty"`
	Key      *keyOrigin      `json:"key,omitempty"`
	Chain    *chainContext   `json:"chain,omitempty"`
	Loaded   *loadedRow      `json:"loaded,omitempty"`    // --db: the row as loaded
	Context  string          `json:"context"`             // what the chain and nonce judgments were made against
	Findings []findingRow    `json:"findings,omitempty"`  // --db: finding rows that name the receipt
	Tool     *toolContext    `json:"tool,omitempty"`      // a drifted or unknown tool
	Replays  []replayOf      `json:"replay_of,omitempty"` // --db: the receipts it repeats

	res *verify.Result
	raw []byte
}

// signedBytes are the bytes the signature was checked over.
type signedBytes struct {
	Text   string `json:"text"` // as a string; JSON escapes what is not UTF-8 text
	SHA256 string `json:"sha256"`
	Bytes  int    `json:"bytes"`
}

// keyOrigin is the key the receipt names, as the key directory has it.
type keyOrigin struct {
	ID           string `json:"id"`
	Alg          string `json:"alg,omitempty"`
	Source       string `json:"source,omitempty"` // file[index]
	SourceFormat string `json:"source_format,omitempty"`
	Status       string `json:"status,omitempty"`
	SelfAsserted bool   `json:"self_asserted,omitempty"`
	Found        bool   `json:"found"`
}

// chainContext is the receipt's place in the chains of its file.
type chainContext struct {
	Hash        string      `json:"hash,omitempty"`     // what a successor names
	Previous    string      `json:"previous,omitempty"` // what it names
	Genesis     bool        `json:"genesis,omitempty"`
	Predecessor []neighbour `json:"predecessors"`        // lines whose hash it names
	Successors  []neighbour `json:"successors"`          // lines that name its hash
	BrokenBy    []fieldDiff `json:"broken_by,omitempty"` // chain_break: the scope fields that differ from the predecessor's
	InDB        bool        `json:"-"`                   // the neighbours are the database's
}

type neighbour struct {
	Source   string `json:"source,omitempty"` // --db: the file it was loaded from
	Line     int    `json:"line"`
	Verdict  string `json:"verdict"`
	ActionID string `json:"action_id,omitempty"`
}

// chainEntry is what the page needs to know of every record of the file.
type chainEntry struct {
	neighbour
	hash, prev string
	scope      scopeFields
	order      streamrun.Order // where it stands among a predecessor's namers
}

func explainAction(ctx *cli.Context) error {
	format, err := formatOf(ctx, "text", "json")
	if err != nil {
		return err
	}
	if ctx.NArg() != 1 {
		return usagef(ctx, "want one PATH:LINE, or --db FILE and one ACTION_ID")
	}
	var ex *explanation
	if pack := ctx.String("pack"); pack != "" {
		ex, err = explainFromPack(ctx, pack, ctx.Args().First())
	} else if lake := ctx.String("lake"); lake != "" {
		ex, err = explainFromDB(ctx, lake, ctx.Args().First())
	} else if db := ctx.String("db"); db != "" {
		ex, err = explainFromDB(ctx, db, ctx.Args().First())
	} else {
		path, line, perr := splitPathLine(ctx.Args().First())
		if perr != nil {
			return usagef(ctx, "%v", perr)
		}
		ex, err = explainLine(ctx, path, line)
	}
	if err != nil {
		return err
	}
	w := ctx.App.Writer
	if format == "json" {
		b, err := json.Marshal(ex)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		if err != nil {
			return err
		}
	} else if err := writeExplanation(w, ex); err != nil {
		return err
	}
	switch ex.res.Verdict {
	case verify.Pass:
		return nil
	case verify.Incomplete:
		return &incompleteError{fmt.Errorf("%s:%d: INCOMPLETE", ex.res.Source, ex.res.Line)}
	}
	return &rejectedError{fmt.Errorf("%s:%d: %s", ex.res.Source, ex.res.Line, ex.res.Verdict)}
}

// splitPathLine splits "PATH:LINE" at its last colon.
func splitPathLine(s string) (string, int, error) {
	i := strings.LastIndexByte(s, ':')
	if i <= 0 {
		return "", 0, fmt.Errorf("want PATH:LINE, not %q", s)
	}
	n, err := strconv.Atoi(s[i+1:])
	if err != nil || n < 1 {
		return "", 0, fmt.Errorf("%q: LINE must be a line number from 1", s)
	}
	return s[:i], n, nil
}

// explainLine verifies the whole of path as verify receipts does and
// explains the record on line.
func explainLine(ctx *cli.Context, path string, line int) (*explanation, error) {
	v, m, err := verifierFromFlags(ctx)
	if err != nil {
		return nil, err
	}
	var sopts streamrun.Options
	if p := ctx.String("predecessor"); p != "" {
		raw, err := readSmallFile(p)
		if err != nil {
			return nil, err
		}
		sopts.Predecessors = [][]byte{raw}
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, usagef(ctx, "%s is a directory: explain takes one file and a line in it", path)
	}
	sigCtx := runContext(ctx)
	srcs, cleanup, err := expandPaths(sigCtx, []string{path}, ctx.App.Reader, ctx.App.ErrWriter)
	defer cleanup()
	if err != nil {
		return nil, err
	}
	sopts.Render = streamrun.RenderJSON
	sopts.KeepRaw = true
	var (
		ex      *explanation
		entries []chainEntry
	)
	emit := func(r *streamrun.Record) error {
		prev, _, _ := r.ChainLink()
		ie := streamrun.Index(r.Result)
		ie.SetTiebreak(sha256.Sum256(r.Raw))
		entries = append(entries, chainEntry{
			order:     ie.Order(),
			neighbour: neighbour{Line: r.Line, Verdict: string(r.Verdict), ActionID: strings.Clone(r.Fields.ActionID)},
			hash:      strings.Clone(r.Fingerprints.ChainHash), prev: strings.Clone(prev),
			scope: scopeFields{Issuer: strings.Clone(r.Fields.IssuerID), Org: strings.Clone(r.Fields.OrgID),
				Agent: strings.Clone(r.Fields.AgentID), Session: strings.Clone(r.Fields.SessionID)},
		})
		if r.Line != line {
			return nil
		}
		// The result is emit's to keep; its bytes are the stream's until
		// emit returns: keep a copy.
		ex = &explanation{res: r.Result, Result: bytes.TrimSuffix(bytes.Clone(r.Rendered), []byte("\n")), raw: bytes.Clone(r.Raw),
			Context: "the whole file " + path}
		return nil
	}
	sum, err := streamrun.Run(sigCtx, v, srcs, sopts, emit)
	if err != nil && sigCtx.Err() != nil {
		return nil, &interruptedError{errors.New("explain: interrupted")}
	}
	if err != nil {
		return nil, err
	}
	if sum.FilesFailed > 0 && ex == nil {
		return nil, &inputError{fmt.Errorf("%s could not be read", path)}
	}
	if ex == nil {
		return nil, usagef(ctx, "%s has no receipt on line %d (%d lines read, %d blank)", path, line, sum.Lines, sum.Blank)
	}
	lines := make(map[int]bool, len(entries))
	for _, e := range entries {
		lines[e.Line] = true
	}
	notesWithLines(ex.res, path, lines)
	ex.Result = ex.res.AppendJSON(nil)
	ex.fill(v, m, ex.raw)
	ex.Chain = chainOf(ex.res, entries)
	if ex.Chain != nil && hasReason(ex.res, verify.ReasonChainBreak) {
		for _, e := range entries {
			if e.Line != line && e.hash != "" && e.hash == ex.Chain.Previous {
				ex.Chain.BrokenBy = append(ex.Chain.BrokenBy, scopeDiffs(scopeOf(ex.res.Fields), e.scope, fmt.Sprintf("%s:%d", path, e.Line))...)
			}
		}
	}
	return ex, nil
}

// fill adds what the stream's result does not carry: the signed bytes
// (the receipt verified again, alone, keeping them) and the key's origin.
func (ex *explanation) fill(v *verify.Verifier, m *material, raw []byte) {
	dir := m.keys
	ex.Tool = toolContextOf(ex.res, m.schemas)
	if raw != nil {
		if again, _ := v.VerifyWith(raw, verify.VerifyOptions{KeepSigned: true}); again != nil && again.Signed != nil {
			sum := sha256.Sum256(again.Signed)
			ex.Signed = &signedBytes{Text: string(again.Signed), SHA256: hex.EncodeToString(sum[:]), Bytes: len(again.Signed)}
		}
	}
	f := ex.res.Fields
	if f.KeyID == "" && !f.KeySelfAsserted {
		return
	}
	k := &keyOrigin{ID: f.KeyID, Alg: f.Alg, SelfAsserted: f.KeySelfAsserted}
	for _, key := range dir.Keys() {
		if key.KID == f.KeyID {
			k.Found, k.Source, k.SourceFormat, k.Status = true, key.Source.String(), string(key.Source.Format), string(key.Status)
			if k.Alg == "" {
				k.Alg = string(key.Alg)
			}
			break
		}
	}
	ex.Key = k
}

// chainOf finds res's neighbours among the records of its file, its
// successors in the receipts' order (streamrun.Order), as the verdicts
// take them: the first listed is the one that links.
func chainOf(res *verify.Result, entries []chainEntry) *chainContext {
	prev, genesis, present := res.ChainLink()
	hash := res.Fingerprints.ChainHash
	if !present && hash == "" {
		return nil
	}
	c := &chainContext{Hash: hash, Previous: prev, Genesis: genesis, Predecessor: []neighbour{}, Successors: []neighbour{}}
	var succs []chainEntry
	for _, e := range entries {
		if e.Line == res.Line {
			continue
		}
		if present && !genesis && prev != "" && e.hash == prev {
			c.Predecessor = append(c.Predecessor, e.neighbour)
		}
		if hash != "" && e.prev == hash {
			succs = append(succs, e)
		}
	}
	slices.SortStableFunc(succs, func(a, b chainEntry) int { return bytes.Compare(a.order[:], b.order[:]) })
	for _, e := range succs {
		c.Successors = append(c.Successors, e.neighbour)
	}
	return c
}

// writeExplanation writes the page. Everything quoted from the receipt is
// escaped (termtext), as in verify receipts' text output.
func writeExplanation(w io.Writer, ex *explanation) error {
	r := ex.res
	var b strings.Builder
	p := func(format string, a ...any) { fmt.Fprintf(&b, format, a...) }
	esc := termtext.Escape
	p("%s:%d\n\n", esc(r.Source), r.Line)
	p("  format    %s\n", esc(r.Format))
	p("  verdict   %s\n", r.Verdict)
	if len(r.Reasons) > 0 {
		rs := make([]string, len(r.Reasons))
		for i, x := range r.Reasons {
			rs[i] = string(x)
		}
		p("  reasons   %s\n", strings.Join(rs, ", "))
	}
	if r.Error != "" {
		p("  error     %s\n", esc(r.Error))
	}
	p("  judged    with %s\n", esc(ex.Context))
	if l := ex.Loaded; l != nil {
		p("  as loaded %s", l.Verdict)
		if l.Reasons != "" {
			p(" (%s)", esc(l.Reasons))
		}
		p(", day %s\n", l.Day)
		if len(l.Also) > 0 {
			p("  also      %s carry the same action_id\n", esc(strings.Join(l.Also, ", ")))
		}
	}
	if r.Axes.Len() > 0 {
		p("\naxes\n")
		for name, ax := range r.Axes.All() {
			line := fmt.Sprintf("  %-17s %-8s", name, ax.Status)
			if ax.Reason != "" {
				line += " " + string(ax.Reason)
			}
			if ax.Note != "" {
				line += " (" + esc(ax.Note) + ")"
			}
			p("%s\n", strings.TrimRight(line, " "))
		}
	}
	if k := ex.Key; k != nil {
		p("\nkey\n  id        %s\n", esc(k.ID))
		if k.Alg != "" {
			p("  alg       %s\n", esc(k.Alg))
		}
		switch {
		case k.Found:
			p("  from      %s (%s), status %s\n", esc(k.Source), k.SourceFormat, esc(k.Status))
		case k.SelfAsserted:
			p("  from      the receipt itself (the format embeds its key: it proves integrity, not who signed)\n")
		default:
			p("  from      not in the key directory (--keys)\n")
		}
	}
	if s := ex.Signed; s != nil {
		p("\nsigned bytes (%d, SHA-256 %s): exactly what the signature covers\n", s.Bytes, s.SHA256)
		for _, l := range strings.Split(s.Text, "\n") {
			p("  %s\n", esc(l))
		}
	} else if r.Verdict != verify.Unreadable {
		p("\nsigned bytes: none were checked (%s)\n", esc(r.Axes.Of(verify.AxisSignature).Note))
	}
	if c := ex.Chain; c != nil {
		where := "file"
		if c.InDB {
			where = "database"
		}
		p("\nchain\n")
		if c.Hash != "" {
			p("  hash        %s\n", c.Hash)
		}
		switch {
		case c.Genesis:
			p("  links to    genesis (first of its chain)\n")
		case c.Previous != "":
			p("  links to    %s\n", esc(c.Previous))
			p("  predecessor %s\n", neighbours(c.Predecessor, "not in this "+where))
		}
		p("  successors  %s\n", neighbours(c.Successors, "none in this "+where))
		for _, d := range c.BrokenBy {
			p("  broken by   %s: %q here, %q in the predecessor %s\n", d.Field, esc(d.Receipt), esc(d.Predecessor), esc(d.At))
		}
	}
	for _, r := range ex.Replays {
		p("\nreplay\n  repeats     %s (%s", esc(r.At), esc(r.Kind))
		if r.ActionID != "" {
			p(", %s", esc(r.ActionID))
		}
		p(")\n")
	}
	if t := ex.Tool; t != nil {
		p("\ntool\n  name        %s\n  fingerprint %s\n", esc(t.Name), esc(t.Fingerprint))
		if len(t.Expected) > 0 {
			p("  expected    %s\n", esc(joinTools(t.Expected)))
		} else {
			p("  expected    no expected server exposes %s\n", esc(t.Name))
		}
		p("  next        %s\n", esc(t.Next))
	}
	if len(ex.Findings) > 0 {
		p("\nfindings\n")
		for _, f := range ex.Findings {
			p("  %s: %s\n", f.Finding, esc(string(f.Row)))
		}
	}
	fields, _ := json.Marshal(r.Fields)
	if len(fields) > 2 {
		p("\nfields\n")
	}
	dec := json.NewDecoder(bytes.NewReader(fields))
	dec.Token() // the object's {
	for dec.More() {
		t, _ := dec.Token()
		name, _ := t.(string)
		var v json.RawMessage
		dec.Decode(&v)
		p("  %-17s %s\n", name, esc(string(v)))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func neighbours(ns []neighbour, none string) string {
	if len(ns) == 0 {
		return none
	}
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprintf("line %d (%s", n.Line, n.Verdict)
		if n.Source != "" {
			parts[i] = fmt.Sprintf("%s:%d (%s", termtext.Escape(n.Source), n.Line, n.Verdict)
		}
		if n.ActionID != "" {
			parts[i] += ", " + termtext.Escape(n.ActionID)
		}
		parts[i] += ")"
	}
	return strings.Join(parts, ", ")
}

// loadedRow is a receipt as an audit database holds it.
type loadedRow struct {
	Source  string   `json:"source"`
	Line    int      `json:"line"`
	Verdict string   `json:"verdict"`
	Reasons string   `json:"reasons"`
	Day     string   `json:"day,omitempty"`
	Also    []string `json:"also,omitempty"` // other receipts with the same action_id
}

// findingRow is one finding row that names the receipt.
type findingRow struct {
	Finding string          `json:"finding"`
	Row     json.RawMessage `json:"row"`
}

// explainFromDB is explain --db: the receipt at FILE:LINE (as loaded, as
// verify show takes it) or with ACTION_ID in the database, judged again
// with the trust material recorded for its load (unless trust flags are
// given), with its whole file when the file is still where it was loaded
// from and holds the same line there, from the stored line alone
// otherwise (its chain then judged only as the load judged it: the
// verdict as loaded is shown beside). A FILE:LINE the database does not
// hold is explained from the file, as without --db, so that a db set in
// verify.toml does not stand in the way.
func explainFromDB(ctx *cli.Context, dbPath, arg string) (*explanation, error) {
	db, err := openSource(ctx)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	bg := runContext(ctx)
	path, line, perr := splitPathLine(arg)
	var rows []analytics.LoadedReceipt
	if perr == nil {
		if rows, err = db.LoadedReceiptsAt(bg, path, int64(line)); err != nil {
			return nil, err
		}
	}
	if len(rows) == 0 {
		if rows, err = db.ReceiptsByAction(bg, arg); err != nil {
			return nil, err
		}
	}
	if len(rows) == 0 {
		fi, serr := os.Stat(path)
		if perr != nil || serr != nil || !fi.Mode().IsRegular() {
			return nil, usagef(ctx, "%s: no receipt at FILE:LINE or with action_id %q", dbPath, arg)
		}
		ex, err := explainLine(ctx, path, line)
		if err != nil {
			return nil, err
		}
		// A loaded file's line that another file delivered first is
		// stored from there.
		n, err := db.Redelivered(bg, path)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			sum := sha256.Sum256(ex.raw)
			if rows, err = db.LoadedReceiptsByLine(bg, hex.EncodeToString(sum[:])); err != nil {
				return nil, err
			}
		}
		if len(rows) == 0 {
			fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s has no receipt at %s: judged from the file\n", termtext.Escape(dbPath), termtext.Escape(arg))
			return ex, nil
		}
		fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s re-delivers %s:%d, stored from there (the same bytes): explained as stored\n",
			termtext.Escape(arg), termtext.Escape(rows[0].Source), rows[0].Line)
	}
	row := rows[0]
	judgedWith, err := useRecordedTrust(ctx, db, row)
	if err != nil {
		return nil, err
	}
	if judgedWith == "" {
		judgedWith = givenTrustNote(ctx, db, row)
	}
	loaded := &loadedRow{Source: row.Source, Line: int(row.Line), Verdict: row.Verdict, Reasons: row.Reasons, Day: row.Day}
	for _, r := range rows[1:] {
		loaded.Also = append(loaded.Also, fmt.Sprintf("%s:%d", r.Source, r.Line))
	}
	var ex *explanation
	if fi, err := os.Stat(row.Source); err == nil && fi.Mode().IsRegular() {
		ex, err = explainLine(ctx, row.Source, int(row.Line))
		if err != nil {
			return nil, err
		}
		if ex.raw == nil || !bytes.Equal(ex.raw, row.Raw) {
			ex = nil // the file changed since it was loaded
		}
	}
	if ex == nil {
		if ex, err = explainRaw(ctx, row); err != nil {
			return nil, err
		}
	}
	if judgedWith != "" {
		ex.Context += "; " + judgedWith
	}
	ex.Loaded = loaded
	if c := chainOf(ex.res, nil); c != nil {
		prev := c.Previous
		if c.Genesis {
			prev = ""
		}
		preds, succs, err := db.ChainNeighbours(bg, prev, c.Hash)
		if err != nil {
			return nil, err
		}
		conv := func(rs []analytics.ChainRow) []neighbour {
			ns := []neighbour{}
			for _, r := range rs {
				if r.Source != row.Source || r.Line != row.Line {
					ns = append(ns, neighbour{Source: r.Source, Line: int(r.Line), Verdict: r.Verdict, ActionID: r.ActionID})
				}
			}
			return ns
		}
		c.Predecessor, c.Successors = conv(preds), conv(succs)
		c.InDB = true
		if hasReason(ex.res, verify.ReasonChainBreak) {
			for _, p := range preds {
				at := fmt.Sprintf("%s:%d", p.Source, p.Line)
				c.BrokenBy = append(c.BrokenBy, scopeDiffs(scopeOf(ex.res.Fields),
					scopeFields{Issuer: p.IssuerID, Org: p.OrgID, Agent: p.AgentID, Session: p.SessionID}, at)...)
			}
		}
		ex.Chain = c
	}
	if row.Day != "" {
		scope := ""
		if ex.res != nil && ex.res.ScopeKey() != "" {
			scope = streamrun.ScopeDigest(ex.res.ScopeKey())
		}
		found, err := db.FindingsNaming(bg, row.Day, row.ActionID, row.Source, row.Line, scope)
		if err != nil {
			return nil, err
		}
		for _, f := range found {
			ex.Findings = append(ex.Findings, findingRow{Finding: f.Query, Row: f.Row})
		}
		ex.Replays = replaysOf(ex.Findings)
	}
	return ex, nil
}

// explainRaw judges a stored line alone: what needs the rest of the
// archive (chain, nonce) is as the load judged it.
func explainRaw(ctx *cli.Context, row analytics.LoadedReceipt) (*explanation, error) {
	v, m, err := verifierFromFlags(ctx)
	if err != nil {
		return nil, err
	}
	res, _ := v.Verify(row.Raw)
	res.Source, res.Line = row.Source, int(row.Line)
	ex := &explanation{res: res, Result: res.AppendJSON(nil), raw: row.Raw,
		Context: "the stored line alone: its file is no longer as loaded, so chain and nonce are judged as in the verdict as loaded"}
	ex.fill(v, m, row.Raw)
	ex.Chain = chainOf(res, nil)
	return ex, nil
}
