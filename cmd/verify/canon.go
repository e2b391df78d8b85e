package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/urfave/cli/v2"
)

func newCanonCommand() *cli.Command {
	return &cli.Command{
		Name:      "canon",
		Usage:     "print the canonical form of a JSON document",
		ArgsUsage: "[FILE|-]",
		Description: `Reads one JSON document from FILE (or stdin when FILE is "-" or absent;
a FILE ending in .gz is gunzipped) and prints its canonical form under
--dialect: exactly the canonical bytes, with NO trailing newline, so the
output can be hashed as is. A rejected document prints nothing on stdout,
the reason on stderr, and exits 1.

With --lines, every input line is one document and every output line is
about the input line with the same number: its canonical form and a
newline, or "error: <message>" for a line that is rejected (also reported
on stderr as "verify: FILE:LINE: <message>"). A blank line is not a
document and is rejected, as is a line over 16 MiB; reading goes on
after either. Exit 1 if any line was rejected.

--list prints every dialect name (aliases included) and its description,
tab separated, one per line.`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "dialect", Value: canon.RFC8785().Name(), Usage: "canonical JSON `DIALECT` (see --list)"},
			&cli.BoolFlag{Name: "lines", Usage: "read one document per line, print one canonical form per line"},
			&cli.BoolFlag{Name: "list", Usage: "list the dialects and exit"},
		},
		Action: canonAction,
	}
}

type canonOptions struct {
	dialect canon.Dialect
	lines   bool
	file    string
}

func canonAction(ctx *cli.Context) error {
	stdout, stderr := ctx.App.Writer, ctx.App.ErrWriter
	if ctx.Bool("list") {
		if ctx.NArg() > 0 {
			return usagef(ctx, "--list takes no FILE argument")
		}
		return listDialects(stdout)
	}
	d, err := canon.Lookup(ctx.String("dialect"))
	if err != nil {
		return usagef(ctx, "%v", err)
	}
	file, err := inputArg(ctx)
	if err != nil {
		return err
	}
	opts := canonOptions{dialect: d, lines: ctx.Bool("lines"), file: file}

	in, err := openInput(opts.file, ctx.App.Reader)
	if err != nil {
		return err
	}
	defer in.Close()
	if opts.lines {
		return eachLine(in, stdout, stderr, opts.dialect.AppendCanonical)
	}
	raw, err := in.readAll()
	if err != nil {
		return err
	}
	out, err := opts.dialect.Canonicalize(raw)
	if err != nil {
		return &rejectedError{fmt.Errorf("%s: %w", in.name, err)}
	}
	if _, err := stdout.Write(out); err != nil {
		return fmt.Errorf("write stdout: %w", err)
	}
	return nil
}

// listDialects prints "NAME\tDOC" for every name --dialect accepts; an
// alias's DOC is "alias of NAME".
func listDialects(w io.Writer) error {
	var b strings.Builder
	for _, name := range canon.Names() {
		d, err := canon.Lookup(name)
		if err != nil {
			return err
		}
		doc := d.Doc()
		if d.Name() != name {
			doc = "alias of " + d.Name()
		}
		fmt.Fprintf(&b, "%s\t%s\n", name, doc)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
