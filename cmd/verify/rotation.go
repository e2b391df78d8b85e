package main

import (
	"cmp"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/internal/engine/streamrun"
)

// rotatedName splits a logrotate name into its live file's name and the
// rotation: a number (X.jsonl.3) or a date (X.jsonl-20261102, with an hour
// or a count after it), either one gzipped.
var rotatedName = regexp.MustCompile(`^(.*?)(?:\.([0-9]+)|-([0-9]{8}(?:[0-9]{2})?(?:-[0-9]+)?))(?:\.gz)?$`)

// rotationKey places a file within its logrotate family, oldest first:
// numbered rotations from the highest number down (X.jsonl.2 was rotated
// before X.jsonl.1), then dated ones by date, then the live file (and its
// .gz) last. Files of different families keep their name order.
type rotationKey struct {
	dir    int // the order in which the walk reached the directory
	family string
	rank   int    // 0 numbered, 1 dated, 2 live
	number int    // numbered: higher is older
	date   string // dated: ascending
	name   string
}

func rotationOf(path string) rotationKey {
	_, base := filepath.Split(path)
	k := rotationKey{family: strings.TrimSuffix(base, ".gz"), rank: 2, name: base}
	m := rotatedName.FindStringSubmatch(base)
	if m == nil {
		return k
	}
	if ok, _ := isReceiptFile(m[1]); !ok {
		return k // the suffix is the receipt file's own name, not a rotation
	}
	switch {
	case m[2] != "":
		n, err := strconv.Atoi(m[2])
		if err != nil {
			return k
		}
		k.family, k.rank, k.number = m[1], 0, n
	default:
		k.family, k.rank, k.date = m[1], 1, m[3]
	}
	return k
}

func compareRotation(a, b rotationKey) int {
	return cmp.Or(
		cmp.Compare(a.dir, b.dir),
		strings.Compare(a.family, b.family),
		cmp.Compare(a.rank, b.rank),
		-cmp.Compare(a.number, b.number),
		strings.Compare(a.date, b.date),
		strings.Compare(a.name, b.name),
	)
}

// oldestFirst orders the sources a directory walk found so that each
// logrotate family is read oldest first, the live file last, as the
// receipts were written; a walk's name order would read the live file
// (the newest) before its rotations.
func oldestFirst(srcs []streamrun.Source) {
	keys := make(map[string]rotationKey, len(srcs))
	dirs := map[string]int{}
	for _, s := range srcs {
		k := rotationOf(s.Name)
		dir := filepath.Dir(s.Name)
		if _, ok := dirs[dir]; !ok {
			dirs[dir] = len(dirs)
		}
		k.dir = dirs[dir]
		keys[s.Name] = k
	}
	slices.SortStableFunc(srcs, func(a, b streamrun.Source) int {
		return compareRotation(keys[a.Name], keys[b.Name])
	})
}
