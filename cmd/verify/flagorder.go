package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the hidden last argument with which a shell's
// completion script asks for candidates (urfave/cli's bash completion).
const completionFlag = "--generate-bash-completion"

// flagsFirst lets flags follow arguments, as in `verify receipts FILE
// --keys K`: it moves every flag of the command that args name (and the
// value of a flag that takes one) before that command's arguments, which
// is where urfave/cli, as Go's flag package, looks for them. An argument
// after "--" stays an argument; so does "-" (standard input). A flag the
// command does not define is moved too, so that it is refused as a flag
// rather than read as a file name. args[0] is the program name; args that
// name no command come back as they are.
func flagsFirst(app *cli.App, args []string) []string {
	if len(args) < 2 {
		return args
	}
	out := []string{args[0]}
	i := 1
	// The app's own flags (--help, --version) come before the command.
	for i < len(args) && isFlag(args[i]) {
		out = append(out, args[i])
		if f := lookupFlag(app.Flags, args[i]); f != nil && takesValue(f, args[i]) && i+1 < len(args) {
			i++
			out = append(out, args[i])
		}
		i++
	}
	var cmd *cli.Command
	cmds := app.Commands
	for i < len(args) {
		c := findCommand(cmds, args[i])
		if c == nil {
			break
		}
		out = append(out, args[i])
		cmd, cmds = c, c.Subcommands
		i++
	}
	if cmd == nil || len(cmd.Subcommands) > 0 {
		return args // no command, or one that only dispatches: nothing to move
	}
	var flags, operands []string
	completing := false
	for ; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			operands = append(operands, args[i+1:]...)
			i = len(args)
		case a == completionFlag && i == len(args)-1:
			completing = true
		case !isFlag(a):
			operands = append(operands, a)
		default:
			flags = append(flags, a)
			if f := lookupFlag(cmd.Flags, a); f != nil && takesValue(f, a) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		}
	}
	out = append(out, flags...)
	for _, o := range operands {
		if isFlag(o) || o == "--" {
			out = append(out, "--") // an operand that looks like a flag stays one
			break
		}
	}
	out = append(out, operands...)
	if completing {
		out = append(out, completionFlag)
	}
	return out
}

// isFlag reports whether a looks like a flag: "-x", "--name", "--name=v",
// but not "-" (standard input) or "--" (the end of flags).
func isFlag(a string) bool {
	return len(a) > 1 && a[0] == '-' && a != "--"
}

// lookupFlag finds the flag that a (as written: "--keys", "-o=x") names.
func lookupFlag(flags []cli.Flag, a string) cli.Flag {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	if name == "h" || name == "help" {
		return cli.HelpFlag
	}
	for _, f := range flags {
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	return nil
}

// takesValue reports whether flag f, written as a, is followed by its
// value as the next argument.
func takesValue(f cli.Flag, a string) bool {
	if strings.Contains(a, "=") {
		return false
	}
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.HasName(name) {
			return c
		}
	}
	return nil
}
