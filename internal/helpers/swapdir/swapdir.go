// Package swapdir publishes a directory whole. Its new content is written
// in a hidden directory beside it (Create, WriteFile) and put in its
// place by one rename (Publish): on Linux the two are exchanged in one
// step (renameat2 RENAME_EXCHANGE), so that a reader, a full disk,
// kill -9, SIGTERM or a crash leaves the old directory or the new one,
// never a mix of the two. Where no exchange exists, the old one is
// renamed aside first (".NAME.old") and the new one renamed in: a crash
// between the two renames leaves NAME missing and its old content at
// .NAME.old, which the next Create (or Repair) puts back. What an
// interrupted run left beside NAME (".NAME.new-*", ".NAME.old") is
// removed by the next Create.
package swapdir

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// names are the hidden entries beside final: a generation being
// written, and the old one between the two renames of Publish.
func names(final string) (parent, newPrefix, old string) {
	parent, base := filepath.Split(final)
	if parent == "" {
		parent = "."
	}
	return parent, "." + base + ".new-", filepath.Join(parent, "."+base+".old")
}

// Resolve is the directory that final names: its symlinks followed, so
// that a link to the directory is kept and its target replaced.
func Resolve(final string) string {
	if t, err := filepath.EvalSymlinks(final); err == nil {
		return t
	}
	return filepath.Clean(final)
}

// Repair undoes what an interrupted Publish of final left: the old
// directory put back where final is missing, and the hidden
// generations beside it removed.
func Repair(final string) error {
	parent, newPrefix, old := names(final)
	if _, err := os.Lstat(old); err == nil {
		if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) {
			if err := os.Rename(old, final); err != nil {
				return err
			}
		} else if err := os.RemoveAll(old); err != nil {
			return err
		}
	}
	ents, err := os.ReadDir(parent)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), newPrefix) {
			if err := os.RemoveAll(filepath.Join(parent, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Create repairs final (Repair) and makes the hidden directory its new
// content is written in, beside it, with final's mode (0755 less the
// umask for a new one). It fails where the parent cannot hold it.
func Create(final string) (string, error) {
	if err := Repair(final); err != nil {
		return "", err
	}
	parent, newPrefix, _ := names(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	for range 100 {
		tmp := filepath.Join(parent, newPrefix+strconv.FormatUint(rand.Uint64(), 36))
		err := os.Mkdir(tmp, 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		if fi, err := os.Stat(final); err == nil && fi.IsDir() {
			if err := os.Chmod(tmp, fi.Mode().Perm()); err != nil {
				os.RemoveAll(tmp)
				return "", err
			}
		}
		return tmp, nil
	}
	return "", &fs.PathError{Op: "mkdir", Path: filepath.Join(parent, newPrefix+"*"), Err: fs.ErrExist}
}

// WriteFile writes dir/name and syncs it, so that after Publish a crash
// does not leave the new directory with files short of their bytes.
func WriteFile(dir, name string, data []byte) error {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Publish puts the directory tmp (from Create) in the place of final
// and removes the old one. On error final is as it was; tmp is left
// for the caller to remove (Abort).
func Publish(tmp, final string) error {
	parent, _, old := names(final)
	syncDir(tmp)
	if _, err := os.Lstat(final); errors.Is(err, fs.ErrNotExist) {
		if err := os.Rename(tmp, final); err != nil {
			return err
		}
		syncDir(parent)
		return nil
	}
	if exchange(tmp, final) == nil {
		syncDir(parent)
		return os.RemoveAll(tmp) // now the old one
	}
	if err := os.RemoveAll(old); err != nil {
		return err
	}
	if err := os.Rename(final, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.Rename(old, final)
		return err
	}
	syncDir(parent)
	return os.RemoveAll(old)
}

// Abort removes tmp, a generation not published.
func Abort(tmp string) { os.RemoveAll(tmp) }

// CannotReplace reports whether err says final's place cannot take
// another directory at all (a mount point, another file system), as
// opposed to a failure of this attempt.
func CannotReplace(err error) bool {
	return errors.Is(err, syscall.EBUSY) || errors.Is(err, syscall.EXDEV)
}

// syncDir makes a directory's entries durable, where the system can.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
