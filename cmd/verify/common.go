package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// progressCommands are the commands that draw a progress line.
var progressCommands = []string{"receipts", "load", "audit"}

// commonFlags are the flags of every command that runs (one that only
// dispatches to subcommands has none), where the command does not define
// them itself.
func commonFlags(c *cli.Command) []cli.Flag {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the results to `FILE` instead of stdout (replaced whole, or left as it was if the run fails)"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print only errors on stderr: no warnings, notes, summaries on stderr or progress"},
		&cli.StringFlag{Name: "config", Usage: "configuration `FILE` (TOML) for the flags a scheduled job repeats", DefaultText: configFile + " if present", EnvVars: []string{"VERIFY_CONFIG"}},
	}
	if lookupFlag(c.Flags, "--keys") != nil || lookupFlag(c.Flags, "--schemas") != nil || lookupFlag(c.Flags, "--baseline") != nil {
		flags = append(flags, &cli.BoolFlag{Name: unsafeTrustFlag, Usage: "use key, schema and baseline files that others than their owner could have written (unsafe)"})
	}
	if slices.Contains(progressCommands, c.Name) {
		flags = append(flags, &cli.BoolFlag{Name: "no-progress", Usage: "draw no progress line (there is none unless stderr is a terminal)"})
	}
	var add []cli.Flag
	for _, f := range flags {
		if lookupFlag(c.Flags, "--"+f.Names()[0]) == nil {
			add = append(add, f)
		}
	}
	return add
}

// prepare gives a command that runs the shared flags and what they do
// before its action: the configuration file, -q, the old -o FORMAT
// spelling and -o FILE.
func prepare(c *cli.Command) {
	c.Flags = append(c.Flags, commonFlags(c)...)
	for i, f := range c.Flags {
		c.Flags[i] = configurable(f)
	}
	before := c.Before
	c.Before = func(ctx *cli.Context) error {
		if err := applyConfig(ctx); err != nil {
			return err
		}
		if err := checkTrustFlags(ctx); err != nil {
			return err
		}
		if ctx.Bool("quiet") {
			ctx.App.ErrWriter = io.Discard
		}
		if p := ctx.String("output"); p != "" && p != "-" {
			out, ok := ctx.App.Writer.(*stdoutWriter)
			if !ok {
				return fmt.Errorf("-o: stdout is not redirectable")
			}
			if err := out.redirect(runContext(ctx), p); err != nil {
				return err
			}
		}
		if before != nil {
			return before(ctx)
		}
		return nil
	}
}

// formatAliases are the other names --format accepts: json was the name
// of JSON Lines before jsonl.
var formatAliases = map[string]string{"json": "jsonl"}

// formatFlag is -f/--format with the given names (the first the default).
func formatFlag(names ...string) cli.Flag {
	return &cli.StringFlag{Name: "format", Aliases: []string{"f"}, Value: names[0], Usage: formatUsage(names)}
}

func formatUsage(names []string) string {
	u := "output `FORMAT`: " + strings.Join(names, ", ")
	if slices.Contains(names, "jsonl") {
		u += " (JSON Lines; json is the same)"
	}
	return u
}

// formatOf is --format, its alias resolved, if it is one of names.
func formatOf(ctx *cli.Context, names ...string) (string, error) {
	f := ctx.String("format")
	if a, ok := formatAliases[f]; ok && slices.Contains(names, a) {
		f = a
	}
	if !slices.Contains(names, f) {
		return "", usagef(ctx, "--format must be %s, not %q", strings.Join(names, ", "), ctx.String("format"))
	}
	return f, nil
}
