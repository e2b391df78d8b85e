// Package evidence writes and reads evidence packs: one .tar.gz that
// carries what a third party needs to check an audit's failures offline
// (the receipts' exact lines, the trust material, the queries, the reports
// and their attestation), with a manifest, pack.json, that names every
// other entry by SHA-256. Reading checks each entry against it, and bounds
// what it reads: a pack is input from elsewhere.
package evidence

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
	"time"
)

// ManifestName is the pack's manifest entry, written first.
const ManifestName = "pack.json"

// Limits on a pack read: entries, and bytes once decompressed.
const (
	MaxEntries = 100000
	MaxBytes   = 1 << 30
)

// Version is the pack format's version, in its manifest.
const Version = 1

// Manifest is pack.json.
type Manifest struct {
	Version     int       `json:"version"`
	ToolVersion string    `json:"tool_version"`
	From        string    `json:"from"`
	To          string    `json:"to"`
	Days        []string  `json:"days"`
	Database    string    `json:"database"` // the path it was made from, for people
	Receipts    []Receipt `json:"receipts"`
	Trust       []Trust   `json:"trust"`
	Files       []File    `json:"files"` // every other entry
}

// Receipt is one receipt of the pack and its line's entry.
type Receipt struct {
	Source       string    `json:"source"`
	Line         int64     `json:"line"`
	Day          string    `json:"day"`
	Verdict      string    `json:"verdict"`
	Reasons      string    `json:"reasons"`
	ActionID     string    `json:"action_id,omitempty"`
	TrustSHA256  string    `json:"trust_sha256"`
	FileSHA256   string    `json:"file_sha256"`
	Role         string    `json:"role"` // failing, flagged, neighbour
	PreviousHash string    `json:"previous_hash,omitempty"`
	ChainHash    string    `json:"chain_hash,omitempty"`
	LineFile     string    `json:"line_file,omitempty"` // lines/<sha256>; empty when Missing
	Missing      string    `json:"missing,omitempty"`
	Findings     []Finding `json:"findings,omitempty"`
}

// Finding is a finding row that names a receipt.
type Finding struct {
	Finding string          `json:"finding"`
	Row     json.RawMessage `json:"row"`
}

// Trust is one set of trust material verdicts came from.
type Trust struct {
	TrustSHA256   string      `json:"trust_sha256"`
	Keys          []TrustFile `json:"key_files"`
	Schemas       []TrustFile `json:"schema_files"`
	At            string      `json:"at,omitempty"`        // --at of the load, RFC 3339
	JudgedAt      string      `json:"judged_at,omitempty"` // At, or the load's clock
	StrictSchemas bool        `json:"strict_schemas"`
}

// TrustFile is a key or schema file: its path at the load and its entry
// (trust/<sha256>; empty when the database held no bytes of it).
type TrustFile struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
	File   string `json:"file,omitempty"`
}

// File is an entry besides the manifest.
type File struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Bytes  int64  `json:"bytes"`
}

// Writer builds a pack in memory: entries by name, once each.
type Writer struct {
	entries map[string][]byte
}

// NewWriter returns an empty pack.
func NewWriter() *Writer { return &Writer{entries: map[string][]byte{}} }

// Add adds an entry; a name added before keeps its first bytes.
func (w *Writer) Add(name string, data []byte) {
	if _, ok := w.entries[name]; !ok {
		w.entries[name] = data
	}
}

// AddBlob adds data under dir/<its SHA-256> and returns that name.
func (w *Writer) AddBlob(dir string, data []byte) string {
	h := sha256.Sum256(data)
	name := dir + "/" + hex.EncodeToString(h[:])
	w.Add(name, data)
	return name
}

// WriteTo writes the pack as a .tar.gz to out, m's Files listing every
// entry in name order, the manifest first. Times are mtime, so that the
// same content at the same mtime gives the same bytes.
func (w *Writer) WriteTo(out io.Writer, m Manifest, mtime time.Time) error {
	names := make([]string, 0, len(w.entries))
	for n := range w.entries {
		names = append(names, n)
	}
	sort.Strings(names)
	m.Version = Version
	m.Files = nil
	for _, n := range names {
		h := sha256.Sum256(w.entries[n])
		m.Files = append(m.Files, File{Name: n, SHA256: hex.EncodeToString(h[:]), Bytes: int64(len(w.entries[n]))})
	}
	mj, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	zw := gzip.NewWriter(out)
	tw := tar.NewWriter(zw)
	put := func(name string, data []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), ModTime: mtime.UTC(), Typeflag: tar.TypeReg, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	if err := put(ManifestName, append(mj, '\n')); err != nil {
		return err
	}
	for _, n := range names {
		if err := put(n, w.entries[n]); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

// Pack is a pack read and checked.
type Pack struct {
	Manifest Manifest
	Entries  map[string][]byte
}

// Error is a pack that cannot be read or does not match its manifest.
type Error struct {
	Entry string // "" for the pack as a whole
	Msg   string
}

func (e *Error) Error() string {
	if e.Entry == "" {
		return "evidence pack: " + e.Msg
	}
	return fmt.Sprintf("evidence pack: %s: %s", e.Entry, e.Msg)
}

// Read reads a pack from r and checks every entry the manifest lists
// against its SHA-256 and size; an entry it does not list, a name that
// leaves the pack, or a pack past the limits is an *Error.
func Read(r io.Reader) (*Pack, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, &Error{Msg: "not a .tar.gz: " + err.Error()}
	}
	tr := tar.NewReader(zr)
	p := &Pack{Entries: map[string][]byte{}}
	var total int64
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &Error{Msg: err.Error()}
		}
		if len(p.Entries) >= MaxEntries {
			return nil, &Error{Msg: fmt.Sprintf("more than %d entries", MaxEntries)}
		}
		if h.Typeflag != tar.TypeReg {
			return nil, &Error{Entry: h.Name, Msg: "not a regular file"}
		}
		if clean := path.Clean(h.Name); clean != h.Name || path.IsAbs(h.Name) || strings.HasPrefix(clean, "../") || clean == ".." {
			return nil, &Error{Entry: h.Name, Msg: "a name that leaves the pack"}
		}
		if _, dup := p.Entries[h.Name]; dup {
			return nil, &Error{Entry: h.Name, Msg: "twice in the pack"}
		}
		if h.Size < 0 || total+h.Size > MaxBytes {
			return nil, &Error{Msg: fmt.Sprintf("larger than %d bytes", MaxBytes)}
		}
		var b bytes.Buffer
		if _, err := io.Copy(&b, io.LimitReader(tr, h.Size)); err != nil {
			return nil, &Error{Entry: h.Name, Msg: err.Error()}
		}
		total += h.Size
		p.Entries[h.Name] = b.Bytes()
	}
	mj, ok := p.Entries[ManifestName]
	if !ok {
		return nil, &Error{Msg: "no " + ManifestName}
	}
	dec := json.NewDecoder(bytes.NewReader(mj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p.Manifest); err != nil {
		return nil, &Error{Entry: ManifestName, Msg: err.Error()}
	}
	if p.Manifest.Version != Version {
		return nil, &Error{Entry: ManifestName, Msg: fmt.Sprintf("version %d, this verify reads %d", p.Manifest.Version, Version)}
	}
	listed := map[string]bool{ManifestName: true}
	for _, f := range p.Manifest.Files {
		b, ok := p.Entries[f.Name]
		if !ok {
			return nil, &Error{Entry: f.Name, Msg: "listed in the manifest, not in the pack"}
		}
		h := sha256.Sum256(b)
		if got := hex.EncodeToString(h[:]); got != f.SHA256 || int64(len(b)) != f.Bytes {
			return nil, &Error{Entry: f.Name, Msg: fmt.Sprintf("changed: sha256 %s, the manifest says %s", got, f.SHA256)}
		}
		listed[f.Name] = true
	}
	for n := range p.Entries {
		if !listed[n] {
			return nil, &Error{Entry: n, Msg: "not listed in the manifest"}
		}
	}
	return p, nil
}
