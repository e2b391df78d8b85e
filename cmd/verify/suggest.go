package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/xrash/smetrics"
)

// minSuggestScore is the Jaro-Winkler similarity a name needs to be
// offered as "did you mean": urfave/cli offers its closest name however
// far, and a wild guess misleads more than no guess.
const minSuggestScore = 0.8

// undefinedFlag is how the flag package words an unknown flag.
const undefinedFlag = "flag provided but not defined: "

// withFlagSuggestion adds a did-you-mean to an unknown-flag error, from
// the flags of the command that refused it.
func withFlagSuggestion(ctx *cli.Context, err error) error {
	msg := err.Error()
	if !strings.HasPrefix(msg, undefinedFlag) || cli.SuggestFlag == nil {
		return err
	}
	provided := strings.TrimLeft(strings.TrimPrefix(msg, undefinedFlag), "-")
	var flags []cli.Flag
	if ctx != nil && ctx.Command != nil {
		flags = ctx.Command.Flags
	}
	if ctx != nil && len(flags) == 0 && ctx.App != nil {
		flags = ctx.App.Flags
	}
	s := cli.SuggestFlag(flags, provided, true)
	if s == "" || smetrics.JaroWinkler(strings.TrimLeft(s, "-"), provided, 0.7, 4) < minSuggestScore {
		return err
	}
	return fmt.Errorf("%w (did you mean %s?)", err, s)
}

// commandSuggestion is " (did you mean NAME?)" for an unknown command
// close to one of app's, else "".
func commandSuggestion(app *cli.App, provided string) string {
	best, score := "", 0.0
	for _, c := range app.Commands {
		if c.Hidden {
			continue
		}
		if s := smetrics.JaroWinkler(c.Name, provided, 0.7, 4); s > score {
			best, score = c.Name, s
		}
	}
	if score < minSuggestScore {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}
