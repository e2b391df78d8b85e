package shard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Run is a sharded run's published map directories, checked against its
// plan: one directory per shard of the plan, none of another plan, each
// mapped with the plan's inputs and trust material, and each part of each
// directory the bytes and the records its manifest names.
type Run struct {
	Plan    *RunPlan
	shards  []*shardDir
	history []*shardDir
	// historyRocks is the RocksDB store of the history (WithHistoryRocks).
	historyRocks string
	// historyKeys are the compact history's files (WithHistoryKeys).
	historyKeys []string
	// only is the shard whose parts OpenShard checked, or -1: Open
	// checked every part.
	only int64
	// engine bounds the DuckDB of the judgments (WithLimits).
	engine Engine
}

// shardDir is one map task's directory and its manifest.
type shardDir struct {
	dir string
	m   *manifest
}

// Open checks the map directories dirs against plan, and the directories
// of earlier runs (history) against their own manifests. Every refusal
// is an *Error naming the directory or file.
func Open(ctx context.Context, plan *RunPlan, dirs, history []string) (*Run, error) {
	return open(ctx, plan, dirs, history, -1)
}

// OpenShard checks the map directories dirs against plan, as Open does,
// but the parts of shard n alone: what FinalizeShard reads. The other
// shards' manifests give the run's record numbers.
func OpenShard(ctx context.Context, plan *RunPlan, dirs []string, n int64) (*Run, error) {
	if n < 0 || n >= plan.Shards {
		return nil, &Error{Reason: ReasonExtraShard, Path: plan.Path, Msg: fmt.Sprintf("--shard %d: the plan has shards 0 to %d", n, plan.Shards-1)}
	}
	return open(ctx, plan, dirs, nil, n)
}

func open(ctx context.Context, plan *RunPlan, dirs, history []string, only int64) (*Run, error) {
	r := &Run{Plan: plan, only: only}
	inputs := map[int64][]Input{}
	for _, in := range plan.Inputs {
		inputs[in.Shard] = append(inputs[in.Shard], in)
	}
	seen := map[int64]string{}
	for _, d := range dirs {
		m, err := readManifest(d)
		if err != nil {
			return nil, err
		}
		switch {
		case m.PlanSHA256 != plan.SHA256:
			return nil, &Error{Reason: ReasonForeign, Path: d, Msg: fmt.Sprintf("shard %d of run %s (plan SHA-256 %s), not of run %s (%s, %s): a foreign shard",
				m.Shard, m.Run, m.PlanSHA256, plan.ID, plan.Path, plan.SHA256)}
		case m.Shard >= plan.Shards:
			return nil, &Error{Reason: ReasonExtraShard, Path: d, Msg: fmt.Sprintf("shard %d, and the plan has shards 0 to %d", m.Shard, plan.Shards-1)}
		}
		if other, ok := seen[m.Shard]; ok {
			return nil, &Error{Reason: ReasonDuplicateShard, Path: d, Msg: fmt.Sprintf("shard %d, as %s is: give each shard once", m.Shard, other)}
		}
		seen[m.Shard] = d
		if diff := m.Trust.Diff(plan.Trust); diff != "" {
			return nil, &Error{Reason: ReasonTrust, Path: d, Msg: "shard " + fmt.Sprint(m.Shard) + " was mapped with " + diff + ": every shard is verified with the plan's trust material"}
		}
		if !slices.Equal(m.Inputs, inputs[m.Shard]) {
			return nil, &Error{Reason: ReasonInputs, Path: d, Msg: fmt.Sprintf("shard %d read other inputs than the plan gives it", m.Shard)}
		}
		r.shards = append(r.shards, &shardDir{dir: d, m: m})
	}
	for n := range plan.Shards {
		if _, ok := seen[n]; !ok {
			return nil, &Error{Reason: ReasonMissing, Path: plan.Path, Msg: fmt.Sprintf("shard %d of %d is missing: no directory given holds it (its inputs: %s)", n, plan.Shards, inputNames(inputs[n]))}
		}
	}
	sort.Slice(r.shards, func(i, j int) bool { return r.shards[i].m.Shard < r.shards[j].m.Shard })
	// History records keep their ord: runs numbered alike (each day's
	// array job 0..N-1) give records of one ord, which the judgments do
	// not mind (they group the history by key, not by ord). One shard of
	// one run given twice is a mistake, refused.
	type runShard struct {
		plan  string
		shard int64
	}
	seenHistory := map[runShard]string{}
	for _, d := range history {
		m, err := readManifest(d)
		if err != nil {
			return nil, err
		}
		if m.PlanSHA256 == plan.SHA256 {
			return nil, &Error{Reason: ReasonDuplicateShard, Path: d, Msg: "a shard of this run given as history"}
		}
		k := runShard{m.PlanSHA256, m.Shard}
		if other, ok := seenHistory[k]; ok {
			return nil, &Error{Reason: ReasonDuplicateShard, Path: d, Msg: fmt.Sprintf("history shard %d of run %s, as %s is: one shard of a run given twice", m.Shard, m.Run, other)}
		}
		seenHistory[k] = d
		r.history = append(r.history, &shardDir{dir: d, m: m})
	}
	check := append(slices.Clone(r.shards), r.history...)
	if only >= 0 {
		check = slices.DeleteFunc(check, func(s *shardDir) bool { return s.m.Shard != only })
	}
	if err := checkParts(ctx, check); err != nil {
		return nil, err
	}
	return r, nil
}

func inputNames(ins []Input) string {
	var names []string
	for _, in := range ins {
		names = append(names, in.Path)
	}
	return strings.Join(names, ", ")
}

// checkParts checks every part of every directory: its SHA-256, and its
// records (rows, links, nonces, ords within the shard) as the manifest
// counts them.
func checkParts(ctx context.Context, dirs []*shardDir) error {
	type want struct {
		dir   *shardDir
		part  Part
		shard int64
	}
	parts := map[string]want{}
	var files []string
	for _, s := range dirs {
		for _, p := range s.m.Parts {
			path := filepath.Join(s.dir, p.Name)
			sum, err := fileSHA256(path, false)
			if err != nil {
				return &Error{Reason: ReasonMissing, Path: path, Msg: "a part the manifest names cannot be read: " + errText(err)}
			}
			if sum != p.SHA256 {
				return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("SHA-256 %s, the manifest says %s: the part is not the one its map step wrote", sum, p.SHA256)}
			}
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			abs = filepath.ToSlash(abs)
			parts[abs] = want{dir: s, part: p, shard: s.m.Shard}
			files = append(files, abs)
		}
	}
	if len(files) == 0 {
		return nil
	}
	db, err := openDuckDB()
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT filename, count(*), count(link_key), count(nonce_key), min(ord), max(ord)
FROM read_parquet(`+duckDBFiles(files)+`, filename = true) GROUP BY filename`)
	if err != nil {
		return fmt.Errorf("reading the parts: %w", err)
	}
	defer rows.Close()
	counted := map[string]bool{}
	for rows.Next() {
		var (
			file             string
			n, links, nonces int64
			minOrd, maxOrd   int64
		)
		if err := rows.Scan(&file, &n, &links, &nonces, &minOrd, &maxOrd); err != nil {
			return err
		}
		w, ok := parts[filepath.ToSlash(file)]
		if !ok {
			return fmt.Errorf("reading the parts: DuckDB names %s, which is none of them", file)
		}
		counted[filepath.ToSlash(file)] = true
		path := filepath.Join(w.dir.dir, w.part.Name)
		if n != w.part.Rows || links != w.part.Links || nonces != w.part.Nonces {
			return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("%d records (%d links, %d nonces), the manifest says %d (%d, %d)", n, links, nonces, w.part.Rows, w.part.Links, w.part.Nonces)}
		}
		if minOrd>>SeqBits != w.shard || maxOrd>>SeqBits != w.shard {
			return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("records of another shard than %d (ord %d to %d)", w.shard, minOrd, maxOrd)}
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for f, w := range parts {
		if !counted[f] && w.part.Rows != 0 {
			return &Error{Reason: ReasonPart, Path: filepath.Join(w.dir.dir, w.part.Name), Msg: fmt.Sprintf("no records, the manifest says %d", w.part.Rows)}
		}
	}
	return nil
}

// Parts are the run's Parquet files, absolute, in shard order: what an
// engine reads as shard_records, and nothing else.
func (r *Run) Parts() []string { return partsOf(r.shards) }

// HistoryParts are the history's Parquet files, absolute: what an engine
// reads as history_keys, the earlier runs' map directories' parts and
// the compact history's files.
func (r *Run) HistoryParts() History {
	return History{Records: partsOf(r.history), Keys: r.historyKeys, Rocks: r.historyRocks}
}

// WithHistoryRocks makes the RocksDB store in dir (an existing
// directory, empty for a new store, refused when it holds anything but
// a store) the run's history, read on
// ClickHouse only (Views).
func (r *Run) WithHistoryRocks(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return &Error{Reason: ReasonMissing, Path: dir, Msg: "the RocksDB history cannot be read: " + errText(err)}
	}
	if !st.IsDir() {
		return &Error{Reason: ReasonMissing, Path: dir, Msg: "the RocksDB history is not a directory"}
	}
	// A directory that holds something else (the Parquet history, say)
	// is refused: ClickHouse would make a store among its files.
	entries, err := os.ReadDir(dir)
	if err != nil {
		return &Error{Reason: ReasonMissing, Path: dir, Msg: "the RocksDB history cannot be read: " + errText(err)}
	}
	if len(entries) > 0 && !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "CURRENT" && !e.IsDir() }) {
		return &Error{Reason: ReasonManifest, Path: dir, Msg: "neither empty nor a RocksDB store (no CURRENT file)"}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	r.historyRocks = abs
	return nil
}

// WithHistoryKeys adds the compact history in dir (HistoryKeyFiles) to
// the run's history. The run's own directory in it, if any, is left
// out: skipped says so.
func (r *Run) WithHistoryKeys(dir string) (skipped bool, err error) {
	files, skipped, err := HistoryKeyFiles(dir, r.Plan.ID)
	if err != nil {
		return false, err
	}
	r.historyKeys = append(r.historyKeys, files...)
	return skipped, nil
}

func partsOf(dirs []*shardDir) []string {
	var out []string
	for _, s := range dirs {
		for _, p := range s.m.Parts {
			abs, err := filepath.Abs(filepath.Join(s.dir, p.Name))
			if err != nil {
				abs = filepath.Join(s.dir, p.Name)
			}
			out = append(out, abs)
		}
	}
	return out
}
