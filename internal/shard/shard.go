// Package shard runs a verification as many map tasks and one finalize,
// for archives too large for one machine. A run plan ([Plan], `verify
// plan`) names the run first: its inputs and shards, its trust material.
// A map task (`verify receipts --plan --emit DIR`, [Create]) verifies one
// shard of the plan's inputs with streamrun.Map and writes each record as a
// row of Parquet in DIR: what needs only the receipt itself (its verdict
// alone and its axes), the keys of its chain link and nonce, and its
// state. [Open] checks the directories against the plan and their parts
// against their manifests, and gives the exact parts ([Run.Parts],
// [Views]). The judgments of chains and nonces across all shards are SQL
// (queries/shard/judgments.sql), which runs on DuckDB here or on any
// engine that reads Parquet; [Finalize] checks that they judge every
// record with a link or a nonce exactly once and folds them into the
// verdicts one `verify receipts` over the whole input gives, in the same
// order. The fold streams: each part's records, read in the order the map
// step wrote them, meet the judgments of their ord range, so memory holds
// one part. [FinalizeShard] folds one shard alone (`verify finalize
// --shard N --emit DIR`, one task per shard) into a directory of its own
// ([CreateFold]), with the report's tables if asked
// ([FoldWriter.WithReceipts]), and [ReadFolds] checks the folded shards
// and adds up their summaries (`verify summarize`); [TableViews] gives
// an engine their tables' exact files. Every refusal is an [*Error]
// with a [Reason].
//
// Earlier runs count as loaded before through a compact history of
// their keys (chain owners with their scope, links named, nonces used),
// which queries/shard/history_append.sql extends after each run
// ([AppendHistory] on DuckDB) and [HistoryKeyFiles] lists; [Views] read
// it once for the run's keys, so memory follows the run.
//
// # Layout of a map task's directory
//
//	manifest.json            the run plan's id, SHA-256 and shard count, the shard's
//	                         number, the trust material and inputs it read, each
//	                         part's name, SHA-256 and counts, the shard's summary,
//	                         each input's content SHA-256, the build
//	records-NNNNN.parquet    one row per record that is not a blank line, in input order
//
// A map task writes into a hidden attempt directory beside DIR
// (.NAME.attempt-XXXX) and publishes it by renaming it to DIR once the
// manifest is written: a reader sees a whole shard or none, two attempts
// of one shard cannot mix their files (the first to rename wins, the
// other finds DIR published and gives way), and a killed attempt leaves
// only its hidden directory, which the next attempt to publish removes.
//
// The records' columns: ord (the record's place in the whole run: shard
// × 2^40 + its ordinal in the shard, blank lines counted), source, line,
// format, verdict and reasons (verified alone: the chain and nonce axes
// not judged), axes (JSON), chain_key, link_key, scope_key, nonce_key
// (hex, NULL where the receipt has none: see streamrun.Keys), state (the
// result in a binary form that only the same build of verify reads, which
// the manifest names and Finalize checks), and byte_offset, byte_length
// and line_sha256 (32 bytes): where the line is in its input and its
// SHA-256, NULL for a file that could not be read; receipt_order (hex, with
// a chain hash, a link or a nonce: streamrun.Keys.Order), by which the
// first use of a nonce, the first namer of a predecessor and the first of
// the receipts sharing a chain hash are chosen; claim, true for a receipt whose signature did not verify
// (streamrun.Keys.Claim), which counts as a predecessor present and as
// nothing else; and what the verdict takes from the checks of the
// receipt alone (streamrun.FoldBase), for queries/shard/fold.sql:
// base_verdict and base_reasons (the fold's verdict without a judgment),
// fail_pre, fail_mid, fail_post and skip_pre, skip_mid, skip_post (the
// counted axes' reasons before the chain axis, between chain and nonce,
// after nonce, a comma before each), chain_status, chain_reason,
// nonce_status and nonce_reason (the two axes before their judgments,
// "" where unset), chain_note and nonce_note (their notes), link_prev,
// chain_what and claim_note (what the notes of the judgments name: the
// predecessor named, the field whose difference makes another chain, the
// position a receipt whose signature did not verify claims), and
// unknown_format (no format's detector claimed the receipt). Layout
// version 4 added the fold's columns and version 5 the notes'; a
// directory of another version is refused.
package shard

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"github.com/receiptverify/verify/analytics"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"

	"github.com/receiptverify/verify/internal/engine/streamrun"
)

// Manifest names a map task's directory: what Finalize needs besides the
// records.
const Manifest = "manifest.json"

// manifestVersion is the version of the directory's layout.
const manifestVersion = 5

// SeqBits is how many low bits of ord hold a record's ordinal in its
// shard; the shard's number is above them.
const SeqBits = 40

// MaxShard is the largest shard number.
const MaxShard = 1<<(63-SeqBits) - 1

type manifest struct {
	Version int    `json:"version"`
	Build   string `json:"build"`
	// Run and PlanSHA256 name the run plan: its id and the SHA-256 of its
	// file. The plan's whole input list is not copied: with a shard per
	// file, every manifest would be as large as the plan, and a finalize
	// would read the plan once per shard. Trust and Inputs are this
	// shard's part of it, Shards its shard count.
	Run        string `json:"run"`
	PlanSHA256 string `json:"plan_sha256"`
	Shards     int64  `json:"shards"`
	Shard      int64  `json:"shard"`
	// Attempt is the directory the map step wrote before publishing it.
	Attempt string  `json:"attempt"`
	Trust   Trust   `json:"trust"`
	Inputs  []Input `json:"inputs"`
	Parts   []Part  `json:"parts"`
	// Rows counts the records written; Links and Nonces those of them
	// with a link_key and with a nonce_key: each has exactly one
	// judgment of its kind.
	Rows    int64                `json:"rows"`
	Links   int64                `json:"links"`
	Nonces  int64                `json:"nonces"`
	Summary streamrun.MapSummary `json:"summary"`
	// Contents are the SHA-256 of each input's content (decompressed),
	// by its name as the records' source gives it: the receipts table's
	// file_sha256. An input that could not be read to its end has none.
	Contents []Content `json:"contents"`
}

// Content is an input's content as a load records it in its files row:
// its SHA-256 (file_sha256), length, lines and first line.
type Content struct {
	Source string `json:"source"`
	analytics.FileContent
}

// Part is one Parquet file of a map directory.
type Part struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Rows   int64  `json:"rows"`
	Links  int64  `json:"links"`
	Nonces int64  `json:"nonces"`
}

// build names the build of verify that runs, as the state's binary form
// is private to it: the module version and, when recorded, the VCS
// revision. A build that records no revision (a development build, or
// one made with -buildvcs=false) is named by the SHA-256 of its
// executable instead, so that two different development builds are
// still told apart.
func build() string { return buildOnce() }

var buildOnce = sync.OnceValue(func() string {
	b := "devel"
	bi, ok := debug.ReadBuildInfo()
	if ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		b = bi.Main.Version
	}
	revision := false
	if ok {
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision":
				b += " " + s.Value
				revision = true
			case s.Key == "vcs.modified" && s.Value == "true":
				b += "+modified"
			}
		}
	}
	if !revision {
		if sum, err := executableSHA256(); err == nil {
			b += " sha256:" + sum
		}
	}
	return b
})

// executableSHA256 is the hex SHA-256 of the running executable's file.
func executableSHA256() (string, error) {
	path, err := os.Executable()
	if err != nil {
		return "", err
	}
	return fileSHA256(path, false)
}

func readManifest(dir string) (*manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, Manifest))
	if err != nil {
		return nil, &Error{Reason: ReasonMissing, Path: dir, Msg: "not a published map directory: no " + Manifest + " (" + errText(err) + ")"}
	}
	var m manifest
	bad := func(format string, a ...any) error {
		return &Error{Reason: ReasonManifest, Path: filepath.Join(dir, Manifest), Msg: fmt.Sprintf(format, a...)}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, bad("%v", err)
	}
	if m.Version != manifestVersion {
		return nil, bad("layout version %d, want %d (written by another verify: map the shard again)", m.Version, manifestVersion)
	}
	if m.Build != build() {
		return nil, bad("written by verify build %q, this is %q: run the map and the finalize with one build", m.Build, build())
	}
	if m.Shard < 0 || m.Shard > MaxShard {
		return nil, bad("shard %d out of range", m.Shard)
	}
	if len(m.Parts) == 0 {
		return nil, bad("no parts: a map step writes at least one")
	}
	var rows, links, nonces int64
	for _, p := range m.Parts {
		if p.Name != filepath.Base(p.Name) || !strings.HasSuffix(p.Name, ".parquet") || p.Name == ".parquet" {
			return nil, bad("part %q is not a Parquet file of the directory", p.Name)
		}
		if len(p.SHA256) != 64 || p.Rows < 0 || p.Links < 0 || p.Nonces < 0 {
			return nil, bad("part %s: no SHA-256 or a negative count", p.Name)
		}
		rows, links, nonces = rows+p.Rows, links+p.Links, nonces+p.Nonces
	}
	if rows != m.Rows || links != m.Links || nonces != m.Nonces {
		return nil, bad("the parts hold %d records (%d links, %d nonces), the manifest %d (%d, %d)", rows, links, nonces, m.Rows, m.Links, m.Nonces)
	}
	return &m, nil
}

// openDuckDB opens a private in-memory DuckDB that never loads an
// extension behind our back (Parquet is built in).
func openDuckDB() (*sql.DB, error) {
	cfg := url.Values{"autoinstall_known_extensions": {"false"}, "autoload_known_extensions": {"false"}}
	db, err := sql.Open("duckdb", "?"+cfg.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one session: temporary tables and views are per connection
	if _, err := db.Exec("SET TimeZone='UTC'"); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}
