package shard

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// A run plan names one sharded run before any map step starts, so that
// every step of it can be checked against it: the run's id, the build of
// verify, the trust material (the SHA-256 of every key and schema file,
// the judging instant, strictness), the shard count and the ordered
// inputs with their sizes and shards. `verify plan` writes it; each map
// step reads it, checks its own inputs and trust material against it and
// records it in its manifest (the plan's id, SHA-256 and shard count, the
// shard's inputs and trust material); finalize refuses a directory of
// another plan.

// planVersion is the version of the plan's format.
const planVersion = 1

// maxPlanBytes bounds a plan file, which is read whole.
const maxPlanBytes = 64 << 20

// File is a trust file by its path and the SHA-256 of its bytes.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Trust is what a map step verified with.
type Trust struct {
	// At is the judging instant, RFC 3339 in UTC: a sharded run never
	// judges at "now", which differs from one step to the next.
	At            string `json:"at"`
	StrictSchemas bool   `json:"strict_schemas"`
	Keys          []File `json:"keys"`
	Schemas       []File `json:"schemas"`
}

// Diff is the first difference between t and u as trust material (the
// files' digests in order, not their paths), "" when they agree.
func (t Trust) Diff(u Trust) string {
	if t.At != u.At {
		return fmt.Sprintf("--at %s, the plan's %s", t.At, u.At)
	}
	if t.StrictSchemas != u.StrictSchemas {
		return fmt.Sprintf("--strict-schemas %t, the plan's %t", t.StrictSchemas, u.StrictSchemas)
	}
	files := func(kind string, a, b []File) string {
		for i := range max(len(a), len(b)) {
			switch {
			case i >= len(a):
				return fmt.Sprintf("no %s file where the plan has %s (SHA-256 %s)", kind, b[i].Path, b[i].SHA256)
			case i >= len(b):
				return fmt.Sprintf("%s file %s, which the plan does not name", kind, a[i].Path)
			case a[i].SHA256 != b[i].SHA256:
				return fmt.Sprintf("%s file %s with SHA-256 %s, where the plan has %s with %s", kind, a[i].Path, a[i].SHA256, b[i].Path, b[i].SHA256)
			}
		}
		return ""
	}
	if d := files("key", t.Keys, u.Keys); d != "" {
		return d
	}
	return files("schema", t.Schemas, u.Schemas)
}

// Input is one input file of a plan.
type Input struct {
	Path  string `json:"path"`
	Size  int64  `json:"size"`
	Shard int64  `json:"shard"`
}

// Plan is a run plan.
type Plan struct {
	Version int    `json:"version"`
	ID      string `json:"id"`
	// Build is the verify that made the plan; every step must be it.
	Build  string  `json:"build"`
	Shards int64   `json:"shards"`
	Trust  Trust   `json:"trust"`
	Inputs []Input `json:"inputs"`
}

// NewPlan makes the plan of a run over inputs (in run order, with their
// sizes) in shards shards: consecutive inputs, cut where the running size
// passes each shard's share, every shard at least one input. An empty id
// becomes one derived from the plan's content.
func NewPlan(id string, trust Trust, inputs []Input, shards int64) (*Plan, error) {
	if len(inputs) == 0 {
		return nil, errors.New("a plan needs at least one input")
	}
	if shards < 1 || shards > int64(len(inputs)) || shards > MaxShard+1 {
		return nil, fmt.Errorf("shards: %d: must be 1 to the number of inputs (%d)", shards, len(inputs))
	}
	if _, err := time.Parse(time.RFC3339Nano, trust.At); err != nil {
		return nil, fmt.Errorf("a sharded run needs --at: %v", err)
	}
	var total int64
	for _, in := range inputs {
		total += in.Size
	}
	p := &Plan{Version: planVersion, Build: build(), Shards: shards, Trust: trust}
	var s, sum int64
	for i, in := range inputs {
		// Move to the next shard once this one has its share, as long as
		// every shard after it can still have an input.
		left := int64(len(inputs) - i)
		if i > 0 && s < shards-1 && (sum*shards >= total*(s+1) || left == shards-1-s) {
			s++
		}
		in.Shard = s
		sum += in.Size
		p.Inputs = append(p.Inputs, in)
	}
	p.ID = id
	if p.ID == "" {
		b, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		h := sha256.Sum256(b)
		p.ID = hex.EncodeToString(h[:8])
	}
	return p, nil
}

// Marshal is the plan's file.
func (p *Plan) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// InputsOf are the inputs of shard n, in run order.
func (p *Plan) InputsOf(n int64) []Input {
	var out []Input
	for _, in := range p.Inputs {
		if in.Shard == n {
			out = append(out, in)
		}
	}
	return out
}

// RunPlan is a plan as read from its file, with the SHA-256 of the file's
// bytes: the identity every manifest of the run carries.
type RunPlan struct {
	*Plan
	Path   string
	SHA256 string
}

// ReadPlan reads and checks a plan file. A file that cannot be read is a
// Missing *Error; one that is not a plan of this build is a Mismatch.
func ReadPlan(path string) (*RunPlan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{Reason: ReasonMissing, Path: path, Msg: "the run plan cannot be read: " + errText(err)}
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, maxPlanBytes+1))
	if err != nil {
		return nil, &Error{Reason: ReasonMissing, Path: path, Msg: "the run plan cannot be read: " + errText(err)}
	}
	if len(raw) > maxPlanBytes {
		return nil, &Error{Reason: ReasonPlan, Path: path, Msg: fmt.Sprintf("larger than %d bytes: not a run plan", maxPlanBytes)}
	}
	var p Plan
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &Error{Reason: ReasonPlan, Path: path, Msg: "not a run plan: " + err.Error()}
	}
	if err := p.check(); err != nil {
		return nil, &Error{Reason: ReasonPlan, Path: path, Msg: err.Error()}
	}
	h := sha256.Sum256(raw)
	return &RunPlan{Plan: &p, Path: path, SHA256: hex.EncodeToString(h[:])}, nil
}

func (p *Plan) check() error {
	switch {
	case p.Version != planVersion:
		return fmt.Errorf("not a run plan of this verify (version %d, want %d)", p.Version, planVersion)
	case p.Build != build():
		return fmt.Errorf("plan made by verify build %q, this is %q: run every step of a sharded run with one build", p.Build, build())
	case p.ID == "":
		return errors.New("the plan has no id")
	case p.Shards < 1 || p.Shards > MaxShard+1:
		return fmt.Errorf("shards: %d out of range", p.Shards)
	case len(p.Inputs) == 0:
		return errors.New("the plan names no input")
	}
	if _, err := time.Parse(time.RFC3339Nano, p.Trust.At); err != nil {
		return fmt.Errorf("trust.at: %v", err)
	}
	seen := map[string]bool{}
	var last int64
	for i, in := range p.Inputs {
		switch {
		case in.Path == "" || in.Size < 0:
			return fmt.Errorf("inputs[%d]: no path or a negative size", i)
		case seen[in.Path]:
			return fmt.Errorf("inputs[%d]: %s named twice", i, in.Path)
		case in.Shard < last || in.Shard >= p.Shards || (i == 0 && in.Shard != 0) || in.Shard > last+1:
			return fmt.Errorf("inputs[%d]: shard %d: inputs go to shards 0 to %d in order, each shard at least one", i, in.Shard, p.Shards-1)
		}
		seen[in.Path] = true
		last = in.Shard
	}
	if last != p.Shards-1 {
		return fmt.Errorf("shards: %d, but the inputs fill %d", p.Shards, last+1)
	}
	return nil
}

// CheckInputs checks that the files a map step of shard n reads are the
// plan's, in its order and of its sizes.
func (p *RunPlan) CheckInputs(n int64, paths []string) error {
	if n < 0 || n >= p.Shards {
		return &Error{Reason: ReasonExtraShard, Path: p.Path, Msg: fmt.Sprintf("--shard %d: the plan has shards 0 to %d", n, p.Shards-1)}
	}
	want := p.InputsOf(n)
	for i := range max(len(paths), len(want)) {
		switch {
		case i >= len(paths):
			return &Error{Reason: ReasonInputs, Path: want[i].Path, Msg: fmt.Sprintf("shard %d of the plan reads it, and the map step was not given it", n)}
		case i >= len(want) || paths[i] != want[i].Path:
			return &Error{Reason: ReasonInputs, Path: paths[i], Msg: fmt.Sprintf("not input %d of shard %d in the plan %s: give the plan's inputs in its order, or none", i+1, n, p.Path)}
		}
		fi, err := os.Stat(paths[i])
		if err != nil {
			return &Error{Reason: ReasonMissing, Path: paths[i], Msg: errText(err)}
		}
		if !fi.Mode().IsRegular() {
			return &Error{Reason: ReasonInputs, Path: paths[i], Msg: "not a regular file"}
		}
		if fi.Size() != want[i].Size {
			return &Error{Reason: ReasonInputs, Path: paths[i], Msg: fmt.Sprintf("%d bytes, the plan says %d: it changed since the plan was made", fi.Size(), want[i].Size)}
		}
	}
	return nil
}

// Reason names what a sharded run's check refused.
type Reason string

// The reasons of Error.
const (
	ReasonMissing        Reason = "missing"         // a file or directory that cannot be read, a shard no directory holds
	ReasonPlan           Reason = "plan"            // a file that is not a plan of this build
	ReasonInputs         Reason = "inputs"          // a map step's inputs are not its shard's in the plan
	ReasonTrust          Reason = "trust"           // trust material other than the plan's
	ReasonManifest       Reason = "manifest"        // a manifest that cannot be understood, or of another build
	ReasonForeign        Reason = "foreign_shard"   // a directory of another plan
	ReasonExtraShard     Reason = "extra_shard"     // a shard number the plan does not have
	ReasonDuplicateShard Reason = "duplicate_shard" // two directories of one shard
	ReasonPart           Reason = "part"            // a part whose digest, rows or records differ from its manifest
	ReasonJudgments      Reason = "judgments"       // judgments that do not cover the records exactly once
	ReasonPublished      Reason = "published"       // --emit names a directory holding something else
)

// Error is a sharded run's input refused: a plan, a map directory, a part
// or judgments that do not match what the run's other files say.
type Error struct {
	Reason Reason
	Path   string // the file or directory
	Msg    string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

// Missing reports whether the refusal is of something that cannot be
// read (exit 66 in the CLI) rather than of something that disagrees
// (exit 65).
func (e *Error) Missing() bool { return e.Reason == ReasonMissing }

// errText is err's text without the path that os errors repeat.
func errText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
