package main

import (
	"flag"

	"github.com/urfave/cli/v2"
)

// urfave/cli v2 adds its package-level HelpFlag and VersionFlag to every
// app and command, and BoolFlag.Apply writes to the flag it is called on.
// Two runs in one process (the tests call run concurrently; a library
// user may too) would write one shared struct at once. sharedBoolFlag
// applies a copy instead, so the template is only ever read.
func init() {
	cli.HelpFlag = sharedBoolFlag{cli.HelpFlag.(*cli.BoolFlag)}
	cli.VersionFlag = sharedBoolFlag{cli.VersionFlag.(*cli.BoolFlag)}
}

// sharedBoolFlag is a BoolFlag that may be applied by many apps at once.
type sharedBoolFlag struct{ *cli.BoolFlag }

// Apply registers a private copy of the flag on set.
func (f sharedBoolFlag) Apply(set *flag.FlagSet) error {
	c := *f.BoolFlag
	return c.Apply(set)
}

// GetDefaultText is empty, as for the BoolFlag with DisableDefaultText
// it wraps: help shows "--help, -h  show help", not "(default: false)".
func (f sharedBoolFlag) GetDefaultText() string { return "" }
