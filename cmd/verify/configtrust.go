package main

import (
	"fmt"
	"os"
	"runtime"
)

// checkConfigTrust refuses a configuration file that someone other than
// its owner could have written, as ssh refuses such a config: it sets
// what the run trusts and how it judges (keys, baseline, no-fail), so a
// verify.toml planted in a shared working directory, or one left group-
// or world-writable, must not turn a failing audit into a clean one. The
// file must also be owned by the user running the tool or by root
// (ownerOK, where the system has owners).
func checkConfigTrust(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return &inputError{err}
	}
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o022 != 0 {
		return fmt.Errorf("%s: refused: writable by others than its owner (mode %04o): a configuration file sets what the run trusts; run chmod go-w %s", path, perm, path)
	}
	if uid, ok := ownerOK(fi); !ok {
		return fmt.Errorf("%s: refused: owned by uid %d, not by the user running verify or root: a configuration file sets what the run trusts", path, uid)
	}
	return nil
}
