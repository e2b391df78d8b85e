package analytics

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/receiptverify/verify/internal/dberr"
	"github.com/receiptverify/verify/internal/severity"
	"github.com/receiptverify/verify/internal/table"
	"github.com/receiptverify/verify/queries"
)

// A Baseline is a file of accepted tool-schema findings (TOML):
//
//	[[suppress]]
//	tool = "search"                       # tool_name
//	fingerprint = "455bca1cf661dbf3…"     # tool_fingerprint
//	server = "crm"                        # an expected server with that fingerprint
//	reason = "crm and files both expose search"
//	expires = 2027-03-01                  # a date (UTC midnight) or an RFC 3339 time
//
// An entry names at least one of tool, fingerprint and server, and
// matches a collisions or drift row whose tool_name, tool_fingerprint and
// expected_server equal every one it names. A matching row is still
// reported, marked suppressed with the entry's reason, and does not count
// for the exit code. From its expiry on an entry suppresses nothing and
// the report warns about it, so an acceptance is looked at again. A
// baseline accepts tool schemas only: failures, replays and rejects are
// never suppressed, since no schema explains a forged or replayed receipt.
type Baseline struct {
	Path    string          `toml:"-"` // as given, for messages
	SHA256  string          `toml:"-"` // of the file's bytes
	Entries []baselineEntry `toml:"suppress"`
}

// baselineEntry is one [[suppress]] table.
type baselineEntry struct {
	Tool        string       `toml:"tool,omitempty"`
	Fingerprint string       `toml:"fingerprint,omitempty"`
	Server      string       `toml:"server,omitempty"`
	Reason      string       `toml:"reason"`
	Expires     baselineTime `toml:"expires"`
}

// baselineTime is an entry's expiry: a TOML date (UTC midnight) or date
// and time (without an offset: UTC).
type baselineTime struct{ time.Time }

// UnmarshalTOML reads a TOML date or datetime.
func (d *baselineTime) UnmarshalTOML(v any) error {
	t, ok := v.(time.Time)
	if !ok {
		return fmt.Errorf("expires: want a date such as 2027-03-01, not %T", v)
	}
	switch t.Location().String() {
	case "date-local", "datetime-local": // no offset written: read it as UTC
		t = time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	case "time-local":
		return errors.New("expires: want a date, not a time of day")
	}
	d.Time = t.UTC()
	return nil
}

// MarshalTOML writes a UTC midnight as a TOML date, any other instant as
// an RFC 3339 time.
func (d baselineTime) MarshalTOML() ([]byte, error) {
	t := d.UTC()
	if t.Equal(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)) {
		return []byte(t.Format(time.DateOnly)), nil
	}
	return []byte(t.Format(time.RFC3339Nano)), nil
}

// String describes the entry by what it names.
func (e baselineEntry) String() string {
	var parts []string
	for _, p := range [][2]string{{"tool", e.Tool}, {"fingerprint", e.Fingerprint}, {"server", e.Server}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	return strings.Join(parts, ", ")
}

// Expired says whether the entry no longer applies at now.
func (e baselineEntry) Expired(now time.Time) bool { return !now.Before(e.Expires.Time) }

// suppressible are the finding types a baseline applies to.
var suppressible = []string{"collisions", "drift"}

// matches says whether the entry names a row of finding type name.
func (e baselineEntry) matches(name string, t *table.Table, r []any) bool {
	if !slices.Contains(suppressible, name) {
		return false
	}
	for _, p := range [][2]string{{"tool_name", e.Tool}, {"tool_fingerprint", e.Fingerprint}, {"expected_server", e.Server}} {
		if p[1] == "" {
			continue
		}
		i := t.Col(p[0])
		if i < 0 || table.Text(r[i]) != p[1] || r[i] == nil {
			return false
		}
	}
	return true
}

// ReadBaseline reads and checks a baseline file. Keys it does not know
// (a misspelt "fingerprnt" would otherwise widen an entry) and entries
// without a reason, an expiry or anything to match are errors.
// The file is read up to MaxBaselineBytes: a larger one (or a device
// that never ends) is ErrBaselineTooLarge, not memory exhausted.
func ReadBaseline(path string) (*Baseline, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxBaselineBytes+1))
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	if len(data) > maxBaselineBytes {
		return nil, fmt.Errorf("baseline %s: %w", path, ErrBaselineTooLarge)
	}
	return parseBaseline(path, data)
}

// maxBaselineBytes bounds a baseline file, read whole like the key and
// schema files. A baseline is a few lines per accepted tool schema: 8 MiB
// holds tens of thousands of entries.
const maxBaselineBytes = 8 << 20

// ErrBaselineTooLarge is a baseline file past MaxBaselineBytes.
var ErrBaselineTooLarge = fmt.Errorf("larger than %d bytes", maxBaselineBytes)

// parseBaseline is ReadBaseline of data read from path.
func parseBaseline(path string, data []byte) (*Baseline, error) {
	b := &Baseline{Path: path, SHA256: sha256Hex(data)}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(b)
	if err != nil {
		return nil, fmt.Errorf("baseline %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		var keys []string
		for _, k := range und {
			keys = append(keys, k.String())
		}
		return nil, fmt.Errorf("baseline %s: unknown key(s) %s (entries are [[suppress]] tables of tool, fingerprint, server, reason, expires)", path, strings.Join(keys, ", "))
	}
	for i, e := range b.Entries {
		where := fmt.Sprintf("baseline %s: entry %d", path, i+1)
		switch {
		case e.Tool == "" && e.Fingerprint == "" && e.Server == "":
			return nil, fmt.Errorf("%s names no tool, fingerprint or server", where)
		case strings.TrimSpace(e.Reason) == "":
			return nil, fmt.Errorf("%s (%s) has no reason", where, e)
		case e.Expires.IsZero():
			return nil, fmt.Errorf("%s (%s) has no expires date", where, e)
		}
	}
	return b, nil
}

// suppression is what a baseline did to a report.
type suppression struct {
	Entry   baselineEntry
	Index   int  // 1-based, in file order
	Expired bool // at the report's clock: it suppressed nothing
	Rows    int  // rows it suppressed (or, expired, would have)
}

// apply marks the rows of tables that an unexpired entry matches, in the
// suppressed and suppressed_by columns it appends to every finding table
// (the first matching entry wins), and returns one Suppression per entry.
func (b *Baseline) apply(tables map[string]*table.Table, now time.Time) []suppression {
	out := make([]suppression, 0)
	if b != nil {
		for i, e := range b.Entries {
			out = append(out, suppression{Entry: e, Index: i + 1, Expired: e.Expired(now)})
		}
	}
	for _, name := range queries.Findings() {
		t := tables[name]
		if t == nil {
			continue
		}
		t.Columns = append(t.Columns, "suppressed", "suppressed_by")
		for j, r := range t.Rows {
			var by any
			for k := range out {
				if !out[k].Entry.matches(name, t, r) {
					continue
				}
				out[k].Rows++
				if !out[k].Expired && by == nil {
					by = out[k].Entry.Reason
				}
			}
			t.Rows[j] = append(r, by != nil, by)
		}
	}
	return out
}

// ApplyTo marks the rows of t, one finding query's table (verify query),
// as a report marks them: the suppressed and suppressed_by columns, the
// entries' expiry judged at now. It returns one Suppression per entry. A
// nil baseline adds the columns, every row not suppressed.
func (b *Baseline) ApplyTo(t *table.Table, now time.Time) ([]suppression, error) {
	if !slices.Contains(queries.Findings(), t.Name) {
		return nil, fmt.Errorf("--baseline: %s is not a finding query (%s)", t.Name, strings.Join(queries.Findings(), ", "))
	}
	return b.apply(map[string]*table.Table{t.Name: t}, now), nil
}

// isSuppressed is a finding row's suppressed column.
func isSuppressed(t *table.Table, r []any) bool {
	i := t.Col("suppressed")
	if i < 0 {
		return false
	}
	s, _ := r[i].(bool)
	return s
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// starting is what StartingBaseline accepted, and what it could not.
type starting struct {
	Baseline *Baseline
	Rows     int   // collisions and drift rows above info that the entries accept
	High     int   // of them high: read those entries before adopting the file
	Left     int   // failures, replays and rejects of the day: no baseline accepts them
	Receipts int64 // the day's receipts: none is a day that cannot be known-good
}

// StartingBaseline writes a team's first baseline from a day it declares
// known-good: one entry per (tool, fingerprint) of the day's collisions
// and drift rows above info (info rows fail no --fail-on worth using),
// each with a reason naming the day and the kinds of finding it accepts,
// expiring at expires.
func (db *DB) StartingBaseline(ctx context.Context, day string, expires time.Time) (*starting, error) {
	return startingBaseline(ctx, db.sql, day, expires)
}

// startingBaseline is DB.StartingBaseline on any querier.
func startingBaseline(ctx context.Context, q querier, day string, expires time.Time) (*starting, error) {
	if _, err := queries.ParseDay(day); err != nil {
		return nil, err
	}
	st := &starting{Baseline: &Baseline{Entries: []baselineEntry{}}}
	rows, err := q.QueryContext(ctx, "SELECT count(*) FROM receipts WHERE day = CAST($1 AS DATE)", day)
	if err != nil {
		return nil, &dberr.IOError{Op: "count receipts", Err: err}
	}
	for rows.Next() {
		if err := rows.Scan(&st.Receipts); err != nil {
			rows.Close()
			return nil, &dberr.IOError{Op: "count receipts", Err: err}
		}
	}
	if err := rows.Close(); err != nil {
		return nil, &dberr.IOError{Op: "count receipts", Err: err}
	}
	type pair struct{ tool, fp string }
	var order []pair
	kinds := map[pair][]string{}
	for _, name := range queries.Findings() {
		t, err := runQuery(ctx, q, name, day)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(suppressible, name) {
			st.Left += len(t.Rows)
			continue
		}
		for _, r := range t.Rows {
			sev := t.RowSeverity(r)
			if sev <= severity.Info {
				continue
			}
			st.Rows++
			if sev == severity.High {
				st.High++
			}
			p := pair{table.Text(r[t.Col("tool_name")]), table.Text(r[t.Col("tool_fingerprint")])}
			if _, ok := kinds[p]; !ok {
				order = append(order, p)
			}
			kind := name
			if i := t.Col("kind"); i >= 0 {
				kind = table.Text(r[i])
			}
			kind += " " + sev.String()
			if !slices.Contains(kinds[p], kind) {
				kinds[p] = append(kinds[p], kind)
			}
		}
	}
	slices.SortFunc(order, func(a, b pair) int { return cmp.Or(cmp.Compare(a.tool, b.tool), cmp.Compare(a.fp, b.fp)) })
	for _, p := range order {
		st.Baseline.Entries = append(st.Baseline.Entries, baselineEntry{Tool: p.tool, Fingerprint: p.fp,
			Reason:  fmt.Sprintf("known-good on %s (verify baseline): %s", day, strings.Join(kinds[p], ", ")),
			Expires: baselineTime{expires.UTC()}})
	}
	return st, nil
}

// WriteTOML writes the baseline as a file ReadBaseline reads back.
func (b *Baseline) WriteTOML(w io.Writer, header string) error {
	var buf bytes.Buffer
	for l := range strings.Lines(header) {
		buf.WriteString("# " + l)
	}
	if header != "" && !strings.HasSuffix(header, "\n") {
		buf.WriteString("\n")
	}
	buf.WriteString("\n")
	if len(b.Entries) == 0 {
		buf.WriteString("suppress = []\n")
	} else if err := toml.NewEncoder(&buf).Encode(b); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
