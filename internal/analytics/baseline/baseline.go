// Package baseline reads, applies and writes baseline files: the tool
// schemas a team has accepted, which a report marks suppressed.
package baseline

import (
	"bytes"
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
	"github.com/receiptverify/verify/internal/analytics/table"
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
	Path    string  `toml:"-"` // as given, for messages
	SHA256  string  `toml:"-"` // of the file's bytes
	Data    []byte  `toml:"-"` // the file's bytes, which a report stores in its database
	Entries []Entry `toml:"suppress"`
}

// Entry is one [[suppress]] table.
type Entry struct {
	Tool        string `toml:"tool,omitempty"`
	Fingerprint string `toml:"fingerprint,omitempty"`
	Server      string `toml:"server,omitempty"`
	Reason      string `toml:"reason"`
	Expires     Time   `toml:"expires"`
}

// Time is an entry's expiry: a TOML date (UTC midnight) or date
// and time (without an offset: UTC).
type Time struct{ time.Time }

// UnmarshalTOML reads a TOML date or datetime.
func (d *Time) UnmarshalTOML(v any) error {
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
func (d Time) MarshalTOML() ([]byte, error) {
	t := d.UTC()
	if t.Equal(time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)) {
		return []byte(t.Format(time.DateOnly)), nil
	}
	return []byte(t.Format(time.RFC3339Nano)), nil
}

// String describes the entry by what it names.
func (e Entry) String() string {
	var parts []string
	for _, p := range [][2]string{{"tool", e.Tool}, {"fingerprint", e.Fingerprint}, {"server", e.Server}} {
		if p[1] != "" {
			parts = append(parts, p[0]+" "+p[1])
		}
	}
	return strings.Join(parts, ", ")
}

// Expired says whether the entry no longer applies at now.
func (e Entry) Expired(now time.Time) bool { return !now.Before(e.Expires.Time) }

// suppressible are the finding types a baseline applies to.
var suppressible = []string{"collisions", "drift"}

// Suppressible says whether a baseline applies to the finding query name.
func Suppressible(name string) bool { return slices.Contains(suppressible, name) }

// matches says whether the entry names a row of finding type name.
func (e Entry) matches(name string, t *table.Table, r []any) bool {
	if !Suppressible(name) {
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

// Read reads and checks a baseline file. Keys it does not know
// (a misspelt "fingerprnt" would otherwise widen an entry) and entries
// without a reason, an expiry or anything to match are errors.
// The file is read up to maxBaselineBytes: a larger one (or a device
// that never ends) is ErrTooLarge, not memory exhausted.
func Read(path string) (*Baseline, error) {
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
		return nil, fmt.Errorf("baseline %s: %w", path, ErrTooLarge)
	}
	return Parse(path, data)
}

// maxBaselineBytes bounds a baseline file, read whole like the key and
// schema files. A baseline is a few lines per accepted tool schema: 8 MiB
// holds tens of thousands of entries.
const maxBaselineBytes = 8 << 20

// ErrTooLarge is a baseline file past maxBaselineBytes.
var ErrTooLarge = fmt.Errorf("larger than %d bytes", maxBaselineBytes)

// Parse is Read of data read from path.
func Parse(path string, data []byte) (*Baseline, error) {
	b := &Baseline{Path: path, SHA256: sha256Hex(data), Data: data}
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

// Suppression is what a baseline did to a report.
type Suppression struct {
	Entry   Entry
	Index   int  // 1-based, in file order
	Expired bool // at the report's clock: it suppressed nothing
	Rows    int  // rows it suppressed (or, expired, would have)
}

// Apply marks the rows of tables that an unexpired entry matches, in the
// suppressed and suppressed_by columns it appends to every finding table
// (the first matching entry wins), and returns one Suppression per entry.
func (b *Baseline) Apply(tables map[string]*table.Table, now time.Time) []Suppression {
	out := make([]Suppression, 0)
	if b != nil {
		for i, e := range b.Entries {
			out = append(out, Suppression{Entry: e, Index: i + 1, Expired: e.Expired(now)})
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
func (b *Baseline) ApplyTo(t *table.Table, now time.Time) ([]Suppression, error) {
	if !slices.Contains(queries.Findings(), t.Name) {
		return nil, fmt.Errorf("--baseline: %s is not a finding query (%s)", t.Name, strings.Join(queries.Findings(), ", "))
	}
	return b.Apply(map[string]*table.Table{t.Name: t}, now), nil
}

// IsSuppressed is a finding row's suppressed column.
func IsSuppressed(t *table.Table, r []any) bool {
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

// WriteTOML writes the baseline as a file Read reads back.
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
