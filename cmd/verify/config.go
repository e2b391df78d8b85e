package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/receiptverify/verify/internal/termtext"
	"github.com/urfave/cli/v2"
	"github.com/urfave/cli/v2/altsrc"
)

// configFile is the configuration file read from the working directory
// when --config names none.
const configFile = "verify.toml"

// configKeys are the flags a scheduled job repeats on every run, which a
// configuration file and VERIFY_* environment variables may set; the
// value says whether the flag names a file, which a configuration file
// names relative to itself. Whatever the command line says wins, then the
// environment, then the file, then the flag's default.
var configKeys = map[string]bool{
	"keys":           true,
	"schemas":        true,
	"strict-schemas": false,
	"at":             false,
	"db":             true,
	"out":            true,
	"workers":        false,
	"no-fail":        false,
	"no-progress":    false,
	"quiet":          false,
	"fail-on":        false,
	"baseline":       true,
	"memory-limit":   false,
	"db-threads":     false,
	"include":        false,
	"exclude":        false,
}

// envVar is the environment variable for flag name: VERIFY_STRICT_SCHEMAS.
func envVar(name string) string {
	return "VERIFY_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// configurable gives each flag of configKeys its environment variable and
// makes it one that a configuration file can set (urfave/cli's altsrc).
// Other flags come back as they are.
func configurable(f cli.Flag) cli.Flag {
	name := f.Names()[0]
	if _, ok := configKeys[name]; !ok {
		return f
	}
	env := []string{envVar(name)}
	switch f := f.(type) {
	case *cli.StringFlag:
		f.EnvVars = env
		return altsrc.NewStringFlag(f)
	case *cli.StringSliceFlag:
		f.EnvVars = env
		return altsrc.NewStringSliceFlag(f)
	case *cli.BoolFlag:
		f.EnvVars = env
		return altsrc.NewBoolFlag(f)
	case *cli.IntFlag:
		f.EnvVars = env
		return altsrc.NewIntFlag(f)
	}
	return f
}

// applyConfig reads the configuration file (--config, or verify.toml in
// the working directory if there is one) and sets from it the flags of
// the command that neither the command line nor the environment set. A
// file named but missing is an input error; a key that no command knows,
// or a value of the wrong type, is a usage error naming the file.
func applyConfig(ctx *cli.Context) error {
	path := ctx.String("config")
	if path == "" {
		if _, err := os.Stat(configFile); err != nil {
			return nil
		}
		path = configFile
	}
	if err := checkConfigTrust(path); err != nil {
		var input *inputError
		if errors.As(err, &input) {
			return err
		}
		return usagef(ctx, "%v", err)
	}
	data, err := whileBlocked(runContext(ctx), path, func() ([]byte, error) { return readSmallFile(path) }, func([]byte) {})
	if err != nil {
		return err
	}
	var doc map[string]any
	if err := toml.Unmarshal(data, &doc); err != nil {
		return usagef(ctx, "%s: %v", path, err)
	}
	known := make([]string, 0, len(configKeys))
	for k := range configKeys {
		known = append(known, k)
	}
	slices.Sort(known)
	for k := range doc {
		if _, ok := configKeys[k]; !ok {
			return usagef(ctx, "%s: unknown key %q (known: %s)", path, k, strings.Join(known, ", "))
		}
	}
	values := map[any]any{}
	for _, f := range ctx.Command.Flags {
		name := f.Names()[0]
		v, ok := doc[name]
		if !ok {
			continue
		}
		v, err := configValue(f, v, configKeys[name], filepath.Dir(path))
		if err != nil {
			return usagef(ctx, "%s: %s: %v", path, name, err)
		}
		values[name] = v
	}
	var set []string // the flags the file sets: neither command line nor environment did
	for k := range values {
		if !ctx.IsSet(k.(string)) {
			set = append(set, k.(string))
		}
	}
	quiet := ctx.IsSet("quiet") && ctx.Bool("quiet")
	if err := altsrc.ApplyInputSourceValues(ctx, altsrc.NewMapInputSource(path, values), ctx.Command.Flags); err != nil {
		return err
	}
	// The file in use is named with the flags it set, so that a run's
	// behaviour can be traced to it. A -q of the command line or the
	// environment silences this; one that the file sets does not, or a
	// planted file could hide itself.
	if len(set) > 0 && !quiet {
		slices.Sort(set)
		fmt.Fprintf(ctx.App.ErrWriter, "verify: config %s sets %s\n", termtext.Escape(path), strings.Join(set, ", "))
	}
	return nil
}

// configValue checks v, a value read for flag f, and puts it in the form
// altsrc takes for that kind of flag; a relative file name is made
// relative to dir, the configuration file's.
func configValue(f cli.Flag, v any, isPath bool, dir string) (any, error) {
	rel := func(s string) string {
		if isPath && s != "" && s != "-" && !filepath.IsAbs(s) {
			return filepath.Join(dir, s)
		}
		return s
	}
	switch f.(type) {
	case *altsrc.StringSliceFlag:
		var list []any
		switch v := v.(type) {
		case string:
			list = []any{rel(v)}
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return nil, errors.New("want a string or a list of strings")
				}
				list = append(list, rel(s))
			}
		default:
			return nil, errors.New("want a string or a list of strings")
		}
		return list, nil
	case *altsrc.StringFlag:
		if s, ok := v.(string); ok {
			return rel(s), nil
		}
		return nil, errors.New("want a string")
	case *altsrc.BoolFlag:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, errors.New("want true or false")
	case *altsrc.IntFlag:
		if n, ok := v.(int64); ok {
			return int(n), nil
		}
		return nil, errors.New("want an integer")
	}
	return nil, fmt.Errorf("cannot be set from a file")
}
