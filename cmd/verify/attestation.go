package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/receiptverify/verify/internal/attest"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/urfave/cli/v2"
)

func newAttestationCommand() *cli.Command {
	return &cli.Command{
		Name:      "attestation",
		Usage:     "check a signed attestation of an audit or report offline: its signature and every file it names",
		ArgsUsage: "FILE",
		Description: "FILE is the " + attestationFile + " that audit or report --attest wrote. Its DSSE signature is\n" +
			"checked against the public --key, then each subject (inputs, reports, key, schema, baseline\n" +
			"and query files) against the file of its name, relative names under --root. stdout gets the\n" +
			"result and counts; stderr names every file that differs.\n\n" +
			"Exit codes: 0 signature and every file as attested, 1 no signature verifies under the key\n" +
			"(or FILE is no in-toto DSSE envelope), 64 usage or a key that cannot verify, 65 a file's\n" +
			"SHA-256 differs from the attested one, 66 FILE, the key or a subject file cannot be read.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "key", Usage: "the signer's public `KEY` (PEM, or a key file as --keys reads)"},
			&cli.StringFlag{Name: "root", Value: ".", Usage: "resolve relative subject names under `DIR`"},
		},
		Action: attestationAction,
	}
}

// subjectsError is an attestation whose signature holds and some of whose
// files do not: exit 65 if one changed, else 66.
type subjectsError struct {
	errs []*attest.SubjectError
}

func (e *subjectsError) Error() string {
	changed, missing := 0, 0
	for _, s := range e.errs {
		if s.Missing {
			missing++
		} else {
			changed++
		}
	}
	return fmt.Sprintf("attestation does not hold: %d file(s) changed, %d cannot be read", changed, missing)
}

func (e *subjectsError) code() int {
	for _, s := range e.errs {
		if !s.Missing {
			return exitChanged
		}
	}
	return exitNoInput
}

func attestationAction(ctx *cli.Context) error {
	if ctx.NArg() != 1 {
		return usagef(ctx, "want one FILE")
	}
	if err := requireFlags(ctx, "key"); err != nil {
		return err
	}
	file, keyPath := ctx.Args().First(), ctx.String("key")
	env, err := os.ReadFile(file)
	if err != nil {
		return &inputError{err}
	}
	pub, err := os.ReadFile(keyPath)
	if err != nil {
		return &inputError{err}
	}
	st, err := attest.Open(file, env, keyPath, pub)
	var ke *attest.KeyError
	if errors.As(err, &ke) {
		return usagef(ctx, "--key: %v", err)
	}
	if err != nil {
		return &rejectedError{err}
	}
	errs := attest.Check(st, ctx.String("root"))
	for _, e := range errs {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: %s\n", termtext.Escape(e.Error()))
	}
	s := st.Predicate.Summary
	fmt.Fprintf(ctx.App.Writer, "%s: signature verified; %d of %d file(s) as attested; result %s (%s %s, at %s; %d receipts, %d failing finding(s) on %d day(s))\n",
		file, len(st.Subject)-len(errs), len(st.Subject), st.Predicate.Result, s.Tool, s.ToolVersion, s.At, s.Receipts.Receipts, s.Failing, len(s.Days))
	if len(errs) > 0 {
		return &subjectsError{errs}
	}
	return nil
}
