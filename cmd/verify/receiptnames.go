package main

import (
	"path/filepath"
	"regexp"

	"github.com/urfave/cli/v2"
)

// receiptName is the names a directory walk reads: a receipt file
// (.json, .jsonl, .ndjson, or .log, which producers write JSON Lines
// to), and the names logrotate gives it when it rotates it: a number
// (X.jsonl.1) or, with dateext, a date (X.jsonl-20261102, also with an
// hour), either one gzipped (X.jsonl.1.gz, X.jsonl-20261102.gz). Its
// first group is the extension.
var receiptName = regexp.MustCompile(`\.(json|jsonl|ndjson|log)(?:\.[0-9]+|-[0-9]{8}(?:[0-9]{2})?(?:-[0-9]+)?)?(?:\.gz)?$`)

// receiptNamesHelp says which names a walk reads, for the message that
// names the files it passed over.
const receiptNamesHelp = "a walk reads *.json, *.jsonl, *.ndjson and *.log, their logrotate names (.1, -YYYYMMDD) and the same with .gz"

// isReceiptFile reports whether name is a receipt file, and whether it
// holds JSON Lines (all but .json, one document).
func isReceiptFile(name string) (ok, lines bool) {
	m := receiptName.FindStringSubmatch(name)
	if m == nil {
		return false, true
	}
	return true, m[1] != "json"
}

// jsonDocument is the name of a file holding one JSON document.
var jsonDocument = regexp.MustCompile(`\.json(\.gz)?$`)

// walkOptions are the name filters of a directory walk (--include,
// --exclude), matched against each file's base name.
type walkOptions struct {
	include, exclude []string
}

// reads reports whether a walk reads the file named name, and whether
// as JSON Lines: an --exclude glob leaves out a receipt file, an
// --include glob reads a file of any name (as JSON Lines, unless it
// ends in .json or .json.gz).
func (o walkOptions) reads(name string) (ok, lines bool) {
	base := filepath.Base(name)
	for _, g := range o.exclude {
		if m, _ := filepath.Match(g, base); m {
			return false, true
		}
	}
	ok, lines = isReceiptFile(base)
	if ok {
		return ok, lines
	}
	for _, g := range o.include {
		if m, _ := filepath.Match(g, base); m {
			return true, !jsonDocument.MatchString(base)
		}
	}
	return false, true
}

// walkFlags are --include and --exclude, made anew for each command.
func walkFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringSliceFlag{Name: "include", Usage: "in a directory, also read files whose base name matches `GLOB` (as JSON Lines unless *.json); repeatable"},
		&cli.StringSliceFlag{Name: "exclude", Usage: "in a directory, do not read files whose base name matches `GLOB`; repeatable"},
	}
}

// walkOptionsFrom reads --include and --exclude.
func walkOptionsFrom(ctx *cli.Context) walkOptions {
	return walkOptions{include: ctx.StringSlice("include"), exclude: ctx.StringSlice("exclude")}
}
