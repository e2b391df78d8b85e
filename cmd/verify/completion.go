package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts ask the binary itself for candidates (urfave/cli's
// --generate-bash-completion, after its autocomplete/ scripts); fish gets
// the whole command tree from urfave/cli's ToFishCompletion.
const (
	bashCompletion = `# bash completion for verify: source it, or put it in /etc/bash_completion.d/verify
_verify_complete() {
  local cur="${COMP_WORDS[COMP_CWORD]}" opts
  local words=("${COMP_WORDS[@]:0:$COMP_CWORD}")
  if [[ "$cur" == -* ]]; then
    opts=$("${words[@]}" "$cur" --generate-bash-completion 2>/dev/null)
  else
    opts=$("${words[@]}" --generate-bash-completion 2>/dev/null)
  fi
  COMPREPLY=($(compgen -W "${opts}" -- "${cur}"))
}
complete -o bashdefault -o default -F _verify_complete verify
`
	zshCompletion = `#compdef verify
# zsh completion for verify: put it in a directory of $fpath as _verify
_verify() {
  local -a opts
  local cur=${words[-1]}
  if [[ "$cur" == -* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion 2>/dev/null)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion 2>/dev/null)}")
  fi
  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}
compdef _verify verify
`
)

func newCompletionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script: bash, zsh or fish",
		ArgsUsage: "SHELL",
		Description: "bash: source <(verify completion bash), or save it in /etc/bash_completion.d/verify.\n" +
			"zsh: verify completion zsh > \"${fpath[1]}/_verify\". fish: verify completion fish >\n" +
			"~/.config/fish/completions/verify.fish.\n\n" +
			"Exit codes: 0, 64 usage, 74 stdout failed.",
		Action: func(ctx *cli.Context) error {
			if ctx.NArg() != 1 {
				return usagef(ctx, "want one SHELL: bash, zsh or fish")
			}
			w := ctx.App.Writer
			switch sh := ctx.Args().First(); sh {
			case "bash":
				return writeString(w, bashCompletion)
			case "zsh":
				return writeString(w, zshCompletion)
			case "fish":
				s, err := ctx.App.ToFishCompletion()
				if err != nil {
					return err
				}
				return writeString(w, s)
			default:
				return usagef(ctx, "unknown shell %q (known: bash, zsh, fish)", sh)
			}
		},
	}
}

func newManCommand() *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print the manual page (roff, section 1), or with --markdown the same in Markdown",
		Description: "verify man > verify.1; man ./verify.1. It is made from the commands' own help.\n\n" +
			"Exit codes: 0, 64 usage, 74 stdout failed.",
		Flags: []cli.Flag{&cli.BoolFlag{Name: "markdown", Usage: "write Markdown instead of roff"}},
		Action: func(ctx *cli.Context) error {
			if ctx.NArg() != 0 {
				return usagef(ctx, "unexpected argument %q", ctx.Args().First())
			}
			var (
				s   string
				err error
			)
			if ctx.Bool("markdown") {
				s, err = ctx.App.ToMarkdown()
			} else {
				s, err = ctx.App.ToManWithSection(1)
			}
			if err != nil {
				return err
			}
			return writeString(ctx.App.Writer, s)
		},
	}
}

func writeString(w io.Writer, s string) error {
	_, err := fmt.Fprint(w, s)
	return err
}
