package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/receiptverify/verify/internal/helpers/termtext"
	"github.com/urfave/cli/v2"
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
	"gap-window":     false,
	"thin-fraction":  false,
	"include":        false,
	"exclude":        false,
}

// envVar is the environment variable for flag name: VERIFY_STRICT_SCHEMAS.
func envVar(name string) string {
	return "VERIFY_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// configurable gives each flag of configKeys its environment variable.
// applyConfig sets such a flag from the configuration file when neither
// the command line nor the environment did. Other flags come back as they
// are.
func configurable(f cli.Flag) cli.Flag {
	name := f.Names()[0]
	if _, ok := configKeys[name]; !ok {
		return f
	}
	env := []string{envVar(name)}
	switch f := f.(type) {
	case *cli.StringFlag:
		f.EnvVars = env
	case *cli.StringSliceFlag:
		f.EnvVars = env
	case *cli.BoolFlag:
		f.EnvVars = env
	case *cli.IntFlag:
		f.EnvVars = env
	case *cli.Float64Flag:
		f.EnvVars = env
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
	values := map[string]string{}
	for _, f := range ctx.Command.Flags {
		name := f.Names()[0]
		v, ok := doc[name]
		if !ok {
			continue
		}
		text, err := configValue(f, v, configKeys[name], filepath.Dir(path))
		if err != nil {
			return usagef(ctx, "%s: %s: %v", path, name, err)
		}
		values[name] = text
	}
	quiet := ctx.IsSet("quiet") && ctx.Bool("quiet")
	var set []string // the flags the file sets: neither command line nor environment did
	for name, v := range values {
		if ctx.IsSet(name) {
			continue
		}
		if err := ctx.Set(name, v); err != nil {
			return usagef(ctx, "%s: %s: %v", path, name, err)
		}
		set = append(set, name)
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

// configValue checks v, a value read for flag f, and gives it as the text
// the flag parses; a relative file name is made relative to dir, the
// configuration file's. A list is given in the serialized form of
// cli.StringSlice, so that a file name holding a comma stays one name.
func configValue(f cli.Flag, v any, isPath bool, dir string) (string, error) {
	rel := func(s string) string {
		if isPath && s != "" && s != "-" && !filepath.IsAbs(s) {
			return filepath.Join(dir, s)
		}
		return s
	}
	switch f.(type) {
	case *cli.StringSliceFlag:
		var list []string
		switch v := v.(type) {
		case string:
			list = []string{rel(v)}
		case []any:
			for _, e := range v {
				s, ok := e.(string)
				if !ok {
					return "", errors.New("want a string or a list of strings")
				}
				list = append(list, rel(s))
			}
		default:
			return "", errors.New("want a string or a list of strings")
		}
		return cli.NewStringSlice(list...).Serialize(), nil
	case *cli.StringFlag:
		if s, ok := v.(string); ok {
			return rel(s), nil
		}
		return "", errors.New("want a string")
	case *cli.BoolFlag:
		if b, ok := v.(bool); ok {
			return strconv.FormatBool(b), nil
		}
		return "", errors.New("want true or false")
	case *cli.IntFlag:
		if n, ok := v.(int64); ok {
			return strconv.FormatInt(n, 10), nil
		}
		return "", errors.New("want an integer")
	case *cli.Float64Flag:
		switch n := v.(type) {
		case float64:
			return strconv.FormatFloat(n, 'g', -1, 64), nil
		case int64:
			return strconv.FormatInt(n, 10), nil
		}
		return "", errors.New("want a number")
	}
	return "", fmt.Errorf("cannot be set from a file")
}
