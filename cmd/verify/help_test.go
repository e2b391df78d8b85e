package main

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestEveryHelpEndsWithExamples: the --help of every command and
// subcommand ends with an EXAMPLES section whose lines run verify.
func TestEveryHelpEndsWithExamples(t *testing.T) {
	t.Parallel()
	tail := regexp.MustCompile(`\n\nEXAMPLES:\n(   verify [^\n]+\n)+$`)
	seen := 0
	var walk func(path []string, cmds []*cli.Command)
	walk = func(path []string, cmds []*cli.Command) {
		for _, c := range cmds {
			if c.Name == "help" {
				continue
			}
			p := append(path[:len(path):len(path)], c.Name)
			seen++
			code, stdout, stderr := runVerify(t, append(p, "--help")...)
			if code != exitOK || !tail.MatchString(stdout) {
				t.Errorf("verify %s --help: exit %d, does not end with EXAMPLES:\n%s%s", strings.Join(p, " "), code, stdout, stderr)
			}
			walk(p, c.Subcommands)
		}
	}
	walk(nil, newApp(strings.NewReader(""), io.Discard, io.Discard).Commands)
	if seen < 15 {
		t.Errorf("%d commands walked, want every command and subcommand", seen)
	}
}
