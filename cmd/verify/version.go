package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/receiptverify/verify/analytics"
	"github.com/urfave/cli/v2"
)

// buildInfo is what `verify version` reports: what the binary was built
// from (the Go build information) and with.
type buildInfo struct {
	Version  string `json:"version"`          // module version, "devel" when built from a checkout without one
	Commit   string `json:"commit,omitempty"` // VCS revision, when the build recorded it
	Time     string `json:"commit_time,omitempty"`
	Modified bool   `json:"modified,omitempty"` // built with uncommitted changes
	Go       string `json:"go"`
	DuckDB   string `json:"duckdb"`
	Platform string `json:"platform"`
}

// readBuildInfo reads the binary's build information. `go build` and `go
// install` in a Git checkout record the commit; `go run` and test binaries
// record none.
func readBuildInfo() buildInfo {
	b := buildInfo{Version: "devel", Go: runtime.Version(), DuckDB: analytics.DuckDBVersion(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		b.Version = v
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.time":
			b.Time = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// version is the tool version: the module version and, when the build
// recorded it, the commit. manifest.json's tool_version, OCSF's product
// version and --version all come from it.
func version() string {
	b := readBuildInfo()
	v := b.Version
	if b.Commit != "" {
		c := b.Commit[:min(12, len(b.Commit))]
		if b.Modified {
			c += ", modified"
		}
		v += " (commit " + c + ")"
	}
	return v
}

// versionLine is what --version prints after "verify version".
func versionLine() string {
	b := readBuildInfo()
	return fmt.Sprintf("%s, %s, DuckDB %s, %s", version(), b.Go, b.DuckDB, b.Platform)
}

func newVersionCommand() *cli.Command {
	return &cli.Command{
		Name:  "version",
		Usage: "print the version, commit, Go and DuckDB versions",
		Description: "The version and commit come from the build information Go records in the binary\n" +
			"(go build or go install in a Git checkout; go run records no commit). The same version\n" +
			"is written in each report's manifest.json (tool_version).\n\n" +
			"Exit codes: 0, 64 usage, 74 stdout failed.",
		Flags:  []cli.Flag{formatFlag("text", "json")},
		Action: versionAction,
	}
}

func versionAction(ctx *cli.Context) error {
	if ctx.NArg() != 0 {
		return usagef(ctx, "unexpected argument %q", ctx.Args().First())
	}
	format, err := formatOf(ctx, "text", "json")
	if err != nil {
		return err
	}
	b := readBuildInfo()
	w := ctx.App.Writer
	if format == "json" {
		line, err := json.Marshal(b)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", line)
		return err
	}
	fmt.Fprintf(w, "verify %s\n", b.Version)
	if b.Commit != "" {
		mod := ""
		if b.Modified {
			mod = " (modified)"
		}
		fmt.Fprintf(w, "commit %s%s %s\n", b.Commit, mod, b.Time)
	}
	_, err = fmt.Fprintf(w, "go     %s %s\nduckdb %s\n", b.Go, b.Platform, b.DuckDB)
	return err
}
