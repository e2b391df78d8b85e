package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/urfave/cli/v2"
)

// unsafeTrustFlag lets a run use key, schema and baseline files that
// checkTrusted refuses; its name says what it gives up.
const unsafeTrustFlag = "trust-unsafe-permissions"

// checkTrusted refuses a file the run trusts (what: "a configuration
// file", "a key file", ...) that someone other than its owner could have
// written, as ssh refuses such a config: it sets what the run trusts and
// how it judges, so a file planted in a shared directory, or one left
// group- or world-writable, must not turn a failing audit into a clean
// one. The file must also be owned by the user running the tool or by
// root (ownerOK, where the system has owners). A symlink is judged by its
// target, which is named. allow, if not "", is the flag that would
// accept the file anyway. A file that cannot be read is an *inputError.
func checkTrusted(path, what, allow string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &inputError{err}
	}
	name, target := path, path
	if t, err := filepath.EvalSymlinks(path); err == nil && t != filepath.Clean(path) {
		if l, err := os.Lstat(path); err == nil && l.Mode()&os.ModeSymlink != 0 {
			name, target = fmt.Sprintf("%s (a link to %s)", path, t), t
		}
	}
	or := ""
	if allow != "" {
		or = " (or accept it: --" + allow + ")"
	}
	// A device's mode says who may use it, not who wrote its content
	// (/dev/stdin is a terminal writable by its group).
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && fi.Mode()&os.ModeDevice == 0 && perm&0o022 != 0 {
		return fmt.Errorf("%s: refused: writable by others than its owner (mode %04o): %s sets what the run trusts; run chmod go-w %s%s", name, perm, what, target, or)
	}
	if uid, ok := ownerOK(fi); !ok {
		return fmt.Errorf("%s: refused: owned by uid %d, not by the user running verify or root: %s sets what the run trusts; run chown %d %s%s", name, uid, what, os.Geteuid(), target, or)
	}
	return nil
}

// checkConfigTrust is checkTrusted of a configuration file, which no
// flag accepts: the configuration could set that flag.
func checkConfigTrust(path string) error {
	return checkTrusted(path, "a configuration file", "")
}

// checkTrustFlags refuses, before the command does anything, the key,
// schema and baseline files it names (--keys, --schemas with the *.json
// files of a directory, --baseline) that checkTrusted refuses, as a
// usage error (exit 64), unless --trust-unsafe-permissions accepts them.
// A file that cannot be read is left to the command, which says so.
func checkTrustFlags(ctx *cli.Context) error {
	if ctx.Bool(unsafeTrustFlag) {
		return nil
	}
	type named struct{ path, what string }
	var files []named
	for _, p := range ctx.StringSlice("keys") {
		files = append(files, named{p, "a key file"})
	}
	for _, p := range ctx.StringSlice("schemas") {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			files = append(files, named{p, "a schema file"})
			continue
		}
		files = append(files, named{p, "a schema directory"})
		ents, _ := os.ReadDir(p)
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".json") {
				files = append(files, named{filepath.Join(p, e.Name()), "a schema file"})
			}
		}
	}
	if p := ctx.String("baseline"); p != "" {
		files = append(files, named{p, "a baseline file"})
	}
	for _, f := range files {
		err := checkTrusted(f.path, f.what, unsafeTrustFlag)
		if _, ok := err.(*inputError); ok || err == nil {
			continue
		}
		return usagef(ctx, "%v", err)
	}
	return nil
}
