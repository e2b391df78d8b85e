package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/keys"
	"github.com/receiptverify/verify/verify/toolschema"
	"github.com/urfave/cli/v2"
)

// maxTrustFile bounds key, schema and predecessor files, which are read
// whole.
const maxTrustFile = 64 << 20

// readSmallFile reads a whole trust file; errors are *inputError naming it.
func readSmallFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &inputError{err}
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxTrustFile+1))
	if err != nil {
		return nil, &inputError{fmt.Errorf("%s: %w", path, err)}
	}
	if len(b) > maxTrustFile {
		return nil, &inputError{fmt.Errorf("%s: larger than %d bytes", path, maxTrustFile)}
	}
	return b, nil
}

// storedTrustKey is where explain --db leaves, in the app's metadata, the
// bytes of recorded trust files read from the database (storedTrust).
const storedTrustKey = "stored-trust"

// storedTrust holds trust files' bytes by path, read from an audit
// database because the files at those paths are gone or changed: a
// verifier built from flags naming those paths uses these bytes.
type storedTrust map[string][]byte

// storedTrustOf returns the stored trust files of ctx's app, nil if none.
func storedTrustOf(ctx *cli.Context) storedTrust {
	s, _ := ctx.App.Metadata[storedTrustKey].(storedTrust)
	return s
}

// read reads path, from s when s holds it.
func (s storedTrust) read(path string) ([]byte, error) {
	if b, ok := s[path]; ok {
		return b, nil
	}
	return readSmallFile(path)
}

// loadKeys reads every --keys file into one directory, in the order given,
// and describes each by the SHA-256 of the bytes read.
func loadKeys(paths []string) (*keys.Directory, []analytics.TrustFile, error) {
	return storedTrust(nil).loadKeys(paths)
}

// loadKeys is loadKeys reading the files s holds from s.
func (s storedTrust) loadKeys(paths []string) (*keys.Directory, []analytics.TrustFile, error) {
	var snaps []*keys.Snapshot
	var files []analytics.TrustFile
	for _, p := range paths {
		data, err := s.read(p)
		if err != nil {
			return nil, nil, err
		}
		s, err := keys.Load(p, data)
		if err != nil {
			return nil, nil, &inputError{err}
		}
		snaps = append(snaps, s)
		files = append(files, analytics.TrustFileOf(p, data))
	}
	d, err := keys.NewDirectory(snaps...)
	if err != nil {
		return nil, nil, &inputError{err}
	}
	return d, files, nil
}

// loadSchemas reads schema files and directories of them (*.json, in name
// order); each file is one server, named after the file. Each file read is
// described by the SHA-256 of its bytes.
func loadSchemas(paths []string) (*toolschema.Set, []analytics.TrustFile, error) {
	return storedTrust(nil).loadSchemas(paths)
}

// loadSchemas is loadSchemas reading the files s holds from s.
func (s storedTrust) loadSchemas(paths []string) (*toolschema.Set, []analytics.TrustFile, error) {
	set := toolschema.NewSet()
	var read []analytics.TrustFile
	for _, p := range paths {
		if _, ok := s[p]; ok {
			data := s[p]
			if err := set.Add(toolschema.ServerName(p), data); err != nil {
				return nil, nil, &inputError{err}
			}
			read = append(read, analytics.TrustFileOf(p, data))
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			return nil, nil, &inputError{err}
		}
		files := []string{p}
		if fi.IsDir() {
			entries, err := os.ReadDir(p)
			if err != nil {
				return nil, nil, &inputError{err}
			}
			files = files[:0]
			for _, e := range entries {
				if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
					continue
				}
				f := filepath.Join(p, e.Name())
				if err := irregular(f, e); err != nil {
					return nil, nil, &inputError{err}
				}
				files = append(files, f)
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := readSmallFile(f)
			if err != nil {
				return nil, nil, err
			}
			if err := set.Add(toolschema.ServerName(f), data); err != nil {
				return nil, nil, &inputError{err}
			}
			read = append(read, analytics.TrustFileOf(f, data))
		}
	}
	return set, read, nil
}

// How trustFlags words --schemas, and whether it offers --predecessor.
const (
	schemasUsage     = "expected tool schemas: MCP tools/list `FILE` or directory (repeatable)"
	schemasLoadUsage = schemasUsage + "; also loaded into expected_tools"
	withPredecessor  = true
	noPredecessor    = false
)

// trustFlags are the flags verifierFromFlags reads, worded alike in every
// command that verifies. Only the commands that judge a single input take
// --predecessor: a load finds a link's predecessor in earlier loads.
func trustFlags(predecessor bool, schemas string) []cli.Flag {
	fs := []cli.Flag{&cli.StringSliceFlag{Name: "keys", Usage: "key directory snapshot `FILE` (repeatable; Asqav JWKS, JWK set, hex map, did map or did:key)"}}
	if predecessor {
		fs = append(fs, &cli.StringFlag{Name: "predecessor", Usage: "receipt `FILE` that links may name although it is not in the input"})
	}
	return append(fs,
		&cli.StringSliceFlag{Name: "schemas", Usage: schemas},
		&cli.BoolFlag{Name: "strict-schemas", Usage: "a drifted or unknown tool fails the receipt"},
		&cli.StringFlag{Name: "at", Usage: "judge expiry and clock skew at `TIME` (RFC 3339)", DefaultText: "now"},
		&cli.StringSliceFlag{Name: "checkpoints", Usage: "chain-head checkpoints `FILE`, JSON Lines: C2SP signed notes, obsigna anchor log lines, pipelock recorder checkpoints; verified with the key files and read as inputs (repeatable; docs/verification.md)"},
	)
}

// inputPaths are a command's PATHs and its --checkpoints files: a
// checkpoint is verified and loaded as any receipt is, so that one that
// does not verify is a finding.
func inputPaths(ctx *cli.Context) []string {
	return append(ctx.Args().Slice(), ctx.StringSlice("checkpoints")...)
}

// workersFlag reads --workers: 0 (one per core) up to four per core.
// Verifying is CPU-bound, so more goroutines than that only add work in
// flight, and the pipeline holds a few batches per worker.
func workersFlag(ctx *cli.Context) (int, error) {
	n, most := ctx.Int("workers"), 4*runtime.NumCPU()
	if n < 0 || n > most {
		return 0, usagef(ctx, "--workers must be 0 (one per core) to %d (four per core), not %d", most, n)
	}
	return n, nil
}

// material is what verifierFromFlags built the verifier from: the key
// directory, the schema set (nil without --schemas) for expected_tools,
// the judging instant
// (--at, or the time the command started), which a load also takes as its
// clock, and the trust material a load records.
type material struct {
	keys    *keys.Directory
	schemas *toolschema.Set
	at      time.Time
	trust   analytics.Trust
}

// verifierFromFlags builds the verifier from --keys, --schemas,
// --strict-schemas and --at. Tool-name collisions between schema files
// are reported on stderr.
func verifierFromFlags(ctx *cli.Context) (*verify.Verifier, *material, error) {
	m := &material{at: time.Now().UTC()}
	m.trust.ToolVersion = version()
	if s := ctx.String("at"); s != "" {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil, nil, usagef(ctx, "--at: %v", err)
		}
		m.at = t.UTC()
		m.trust.At = m.at
	}
	at := m.at
	stored := storedTrustOf(ctx)
	dir, keyFiles, err := stored.loadKeys(ctx.StringSlice("keys"))
	if err != nil {
		return nil, nil, err
	}
	for _, c := range dir.Combined() {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: keys: %s\n", termtext.Escape(c.String()))
	}
	for _, w := range dir.Warnings() {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: keys: %s\n", termtext.Escape(w))
	}
	m.trust.Keys = keyFiles
	opts := []verify.Option{verify.WithTime(at)}
	var set *toolschema.Set
	if paths := ctx.StringSlice("schemas"); len(paths) > 0 {
		if set, m.trust.Schemas, err = stored.loadSchemas(paths); err != nil {
			return nil, nil, err
		}
		for _, c := range set.Collisions() {
			var parts []string
			for _, t := range c.Tools {
				parts = append(parts, t.Server+" ("+t.Fingerprint+")")
			}
			fmt.Fprintf(ctx.App.ErrWriter, "verify: schemas: tool %q is exposed with different schemas by %s\n", c.Name, termtext.Escape(strings.Join(parts, ", ")))
		}
		opts = append(opts, verify.WithSchemas(set))
	}
	if ctx.Bool("strict-schemas") {
		opts = append(opts, verify.WithStrictSchemas())
		m.trust.StrictSchemas = true
	}
	notes, err := logCheckpointNotes(ctx.StringSlice("checkpoints"))
	if err != nil {
		return nil, nil, err
	}
	if len(notes) > 0 {
		opts = append(opts, verify.WithLogCheckpoints(notes...))
	}
	v, err := verify.New(dir, opts...)
	if err != nil {
		return nil, nil, usagef(ctx, "%v", err)
	}
	m.keys, m.schemas = dir, set
	return v, m, nil
}

// logCheckpointNotes reads the note text of every {"checkpoint": ...} line
// of the --checkpoints files, so the verifier can judge transparency-log
// inclusion proofs against them. Other lines are left to the read of
// those files as inputs, which judges every line on its own.
func logCheckpointNotes(paths []string) ([]string, error) {
	var notes []string
	for _, p := range paths {
		data, err := readSmallFile(p)
		if err != nil {
			return nil, err
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var l struct {
				Checkpoint *string `json:"checkpoint"`
			}
			if json.Unmarshal(line, &l) == nil && l.Checkpoint != nil {
				notes = append(notes, *l.Checkpoint)
			}
		}
	}
	return notes, nil
}
