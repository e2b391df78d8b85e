package main

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/severity"
	"github.com/receiptverify/verify/internal/attest"
	"github.com/receiptverify/verify/internal/helpers/outfile"
	"github.com/receiptverify/verify/queries"
	"github.com/urfave/cli/v2"
)

// attestationFile is the name of the signed attestation, written beside
// the reports: in OUT for audit, in DIR for report.
const attestationFile = "verify.intoto.json"

func attestFlag() cli.Flag {
	return &cli.StringFlag{Name: "attest", Usage: "sign an in-toto attestation of the run (" + attestationFile +
		" beside the reports) with the private `KEY` (PEM: Ed25519 or ECDSA); docs/attestation.md"}
}

// attestSigner reads --attest's key before any work is done, so a bad
// key costs no run: a missing file exits 66, a key that cannot sign 64.
func attestSigner(ctx *cli.Context) (*attest.Signer, error) {
	path := ctx.String("attest")
	if path == "" {
		return nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &inputError{fmt.Errorf("--attest: %w", err)}
	}
	s, err := attest.NewSigner(path, data)
	if err != nil {
		return nil, usagef(ctx, "--attest: %v", err)
	}
	return s, nil
}

// runManifest is what the attestation reads of a report's manifest.json.
type runManifest struct {
	ToolVersion string `json:"tool_version"`
	Queries     []struct {
		File   string `json:"file"`
		SHA256 string `json:"sha256"`
	} `json:"queries"`
	Inputs []analytics.TrustFile `json:"inputs"`
	Trust  []struct {
		KeyFiles    []analytics.TrustFile `json:"key_files"`
		SchemaFiles []analytics.TrustFile `json:"schema_files"`
	} `json:"trust"`
	Baseline *analytics.TrustFile `json:"baseline"`
}

// writeAttestation signs the statement over the reports' files and
// everything their manifests name (inputs, key, schema and baseline
// files), with the queries the reports ran written into dir/queries/.
// Subject names are paths as the run used them, relative to the working
// directory where they lie under it.
//
// extra are further files the run wrote (the index and the cross-day
// lists), subjects as the reports' files are.
func writeAttestation(s *attest.Signer, dir string, at time.Time, reports []*analytics.ReportSummary, extra ...string) (string, error) {
	cwd, _ := os.Getwd()
	name := func(p string) string {
		if abs, err := filepath.Abs(p); err == nil && cwd != "" {
			if rel, err := filepath.Rel(cwd, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel)
			}
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	var subjects, config []attest.Descriptor
	p := attest.Predicate{Summary: attest.Summary{Tool: "verify", ToolVersion: version(), At: at.UTC().Format(time.RFC3339Nano),
		Findings: map[string]int{}, Severities: map[string]int{}}}
	sev := severity.Count{}
	written := map[string]bool{}
	for _, f := range extra {
		d, err := attest.FileDescriptor(name(f), f)
		if err != nil {
			return "", &ioError{fmt.Errorf("attestation: %w", err)}
		}
		subjects = append(subjects, d)
	}
	for _, r := range reports {
		var m runManifest
		data, err := os.ReadFile(filepath.Join(r.Dir, "manifest.json"))
		if err == nil {
			err = json.Unmarshal(data, &m)
		}
		if err != nil {
			return "", &ioError{fmt.Errorf("attestation: %s: %w", r.Dir, err)}
		}
		for _, f := range r.Files {
			d, err := attest.FileDescriptor(name(filepath.Join(r.Dir, f)), filepath.Join(r.Dir, f))
			if err != nil {
				return "", &ioError{fmt.Errorf("attestation: %w", err)}
			}
			subjects = append(subjects, d)
		}
		for _, f := range m.Inputs {
			subjects = append(subjects, attest.File(name(f.Path), f.SHA256))
		}
		for _, t := range m.Trust {
			for _, f := range append(t.KeyFiles, t.SchemaFiles...) {
				subjects = append(subjects, attest.File(name(f.Path), f.SHA256))
				config = append(config, attest.File(name(f.Path), f.SHA256))
			}
		}
		if b := m.Baseline; b != nil {
			subjects = append(subjects, attest.File(name(b.Path), b.SHA256))
			config = append(config, attest.File(name(b.Path), b.SHA256))
		}
		for _, q := range m.Queries {
			path := filepath.Join(dir, filepath.FromSlash(q.File))
			if !written[path] {
				text, err := fsRead(q.File)
				if err != nil {
					return "", err
				}
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					return "", &ioError{err}
				}
				if err := outfile.WriteFile(path, text); err != nil {
					return "", &ioError{err}
				}
				written[path] = true
			}
			subjects = append(subjects, attest.File(name(path), q.SHA256))
			config = append(config, attest.File(name(path), q.SHA256))
		}
		sum := &p.Summary
		sum.FailOn = r.FailOn.String()
		sum.Days = append(sum.Days, r.Day)
		sum.Receipts.Receipts += r.Receipts.Receipts
		sum.Receipts.Pass += r.Receipts.Pass
		sum.Receipts.Fail += r.Receipts.Fail
		sum.Receipts.Incomplete += r.Receipts.Incomplete
		sum.Suppressed += r.Suppressed
		sum.Failing += r.Failing()
		for i, n := range r.Severities {
			sev[i] += n
		}
		for _, f := range r.Findings {
			sum.Findings[f.Name] += f.Rows
			test := r.Day + "/" + f.Name
			switch {
			case f.Severities.AtLeast(r.FailOn) > 0:
				p.FailedTests = append(p.FailedTests, test)
			case f.Rows > 0:
				p.WarnedTests = append(p.WarnedTests, test)
			default:
				p.PassedTests = append(p.PassedTests, test)
			}
		}
	}
	for _, s := range severity.All() {
		p.Summary.Severities[s.String()] = sev[s]
	}
	switch {
	case len(p.FailedTests) > 0:
		p.Result = attest.Failed
	case len(p.WarnedTests) > 0:
		p.Result = attest.Warned
	default:
		p.Result = attest.Passed
	}
	p.Summary.Verdict = p.Result
	env, err := s.Sign(attest.NewStatement(subjects, config, p))
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, attestationFile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", &ioError{err}
	}
	if err := outfile.WriteFile(path, env); err != nil {
		return "", &ioError{err}
	}
	return path, nil
}

// fsRead is an embedded query's text by its file name ("queries/x.sql").
func fsRead(file string) ([]byte, error) {
	data, err := fs.ReadFile(queries.FS(), strings.TrimPrefix(file, "queries/"))
	if err != nil {
		return nil, fmt.Errorf("attestation: query %s: %w", file, err)
	}
	return data, nil
}
