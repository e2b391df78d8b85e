package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/receiptverify/verify/analytics"
	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/urfave/cli/v2"
)

// trustFlagNames are the flags that give explain its trust material.
var trustFlagNames = []string{"keys", "schemas", "at", "strict-schemas"}

// useRecordedTrust makes explain --db judge a receipt with the trust
// material its load recorded: the key and schema files (each read again
// and its SHA-256 checked against the one recorded), the judging time
// and strictness. Given any trust flag (on the command line, in the
// environment or verify.toml), those are used instead. It returns what
// the page says the receipt was judged with, "" when with the flags.
func useRecordedTrust(ctx *cli.Context, db *analytics.DB, row analytics.LoadedReceipt) (string, error) {
	for _, name := range trustFlagNames {
		if ctx.IsSet(name) {
			return "", nil
		}
	}
	t, err := db.TrustOf(runContext(ctx), row.Trust, row.File)
	if errors.Is(err, dberr.ErrNoTrust) {
		fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s:%d: the database records no key or schema files for its load: judged without any (give --keys and --schemas)\n",
			termtext.Escape(row.Source), row.Line)
		return "no trust material (none recorded for its load)", nil
	}
	if err != nil {
		return "", err
	}
	set := func(name, value string) error {
		if err := ctx.Set(name, value); err != nil {
			return usagef(ctx, "--%s: %v", name, err)
		}
		return nil
	}
	changed, fromDB := 0, 0
	stored := storedTrust{}
	ctx.App.Metadata[storedTrustKey] = stored
	use := func(kind, flag string, files []analytics.TrustFile) error {
		for _, f := range files {
			data, err := readSmallFile(f.Path)
			if err != nil || analytics.TrustFileOf(f.Path, data).SHA256 != f.SHA256 {
				b, ok, derr := db.TrustContent(runContext(ctx), f.SHA256)
				if derr != nil {
					return derr
				}
				if ok {
					fromDB++
					fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s file %s recorded at load is gone or changed: judged with its bytes as loaded, stored in the database\n",
						kind, termtext.Escape(f.Path))
					stored[f.Path] = b
					if err := set(flag, f.Path); err != nil {
						return err
					}
					continue
				}
			}
			if err != nil {
				changed++
				fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s file %s recorded at load cannot be read: judged without it: %v\n",
					kind, termtext.Escape(f.Path), termtext.Escape(err.Error()))
				continue
			}
			if now := analytics.TrustFileOf(f.Path, data); now.SHA256 != f.SHA256 {
				changed++
				fmt.Fprintf(ctx.App.ErrWriter, "verify: explain: %s file %s has changed since the load (SHA-256 %s then, %s now): judged with it as it is now, which may differ from the verdict as loaded\n",
					kind, termtext.Escape(f.Path), f.SHA256, now.SHA256)
			}
			if err := set(flag, f.Path); err != nil {
				return err
			}
		}
		return nil
	}
	if err := use("key", "keys", t.Keys); err != nil {
		return "", err
	}
	if err := use("schema", "schemas", t.Schemas); err != nil {
		return "", err
	}
	if !t.JudgedAt.IsZero() {
		if err := set("at", t.JudgedAt.Format(time.RFC3339Nano)); err != nil {
			return "", err
		}
	}
	if t.StrictSchemas {
		if err := set("strict-schemas", "true"); err != nil {
			return "", err
		}
	}
	what := fmt.Sprintf("the %d key and %d schema file(s) recorded for its load", len(t.Keys), len(t.Schemas))
	if fromDB > 0 {
		what += fmt.Sprintf(" (%d read from the database: gone or changed at their paths)", fromDB)
	}
	if changed > 0 {
		what += fmt.Sprintf(" (%d changed or gone since)", changed)
	}
	switch {
	case !t.At.IsZero():
		what += ", at " + t.JudgedAt.Format(time.RFC3339Nano) + " (its --at)"
	case !t.JudgedAt.IsZero():
		what += ", at " + t.JudgedAt.Format(time.RFC3339Nano) + " (when it was loaded)"
	}
	return what, nil
}

// givenTrustNote says, when trust flags were given, whether they are the
// material the receipt's load recorded: the same key and schema bytes,
// --at and strictness give the verdict as loaded, others may not.
func givenTrustNote(ctx *cli.Context, db *analytics.DB, row analytics.LoadedReceipt) string {
	t, err := db.TrustOf(runContext(ctx), row.Trust, row.File)
	if err != nil {
		return ""
	}
	_, keyFiles, err := loadKeys(ctx.StringSlice("keys"))
	if err != nil {
		return ""
	}
	var schemaFiles []analytics.TrustFile
	if paths := ctx.StringSlice("schemas"); len(paths) > 0 {
		if _, schemaFiles, err = loadSchemas(paths); err != nil {
			return ""
		}
	}
	var at time.Time
	if s := ctx.String("at"); s != "" {
		if at, err = time.Parse(time.RFC3339Nano, s); err != nil {
			return ""
		}
	}
	same := sameHashes(keyFiles, t.Keys) && sameHashes(schemaFiles, t.Schemas) &&
		at.Equal(t.At) && ctx.Bool("strict-schemas") == t.StrictSchemas
	if same {
		return "the trust flags given, the same material as its load's"
	}
	return "the trust flags given, which are not its load's material (without --keys, --schemas, --at and --strict-schemas, explain --db uses the load's)"
}

// sameHashes says whether two lists of trust files hold the same bytes in
// the same order, whatever their paths.
func sameHashes(a, b []analytics.TrustFile) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SHA256 != b[i].SHA256 {
			return false
		}
	}
	return true
}
