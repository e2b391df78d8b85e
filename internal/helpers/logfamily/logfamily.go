// Package logfamily names the logrotate family a receipt file belongs
// to: the live file whose rotations it is. A source's daily volume is
// counted per family, so that a day read from gateway.jsonl.1 and the
// next from gateway.jsonl-20261102.gz are the same source.
package logfamily

import (
	"path/filepath"
	"regexp"
)

// rotated is a receipt file's name (.json, .jsonl, .ndjson, .log) with
// the suffix logrotate gives it: a number (X.jsonl.1) or a date
// (X.jsonl-20261102, with an hour or a count after it), either one
// gzipped; or the live file gzipped.
var rotated = regexp.MustCompile(`^(.*\.(?:json|jsonl|ndjson|log))(?:\.[0-9]+|-[0-9]{8}(?:[0-9]{2})?(?:-[0-9]+)?)?(?:\.gz)?$`)

// Of is path's family: path with the rotation suffix of its base name
// taken off ("logs/gateway.jsonl" for "logs/gateway.jsonl.2.gz"), or path
// itself when the name is not a receipt file's.
func Of(path string) string {
	dir, base := filepath.Split(path)
	m := rotated.FindStringSubmatch(base)
	if m == nil {
		return path
	}
	return dir + m[1]
}
