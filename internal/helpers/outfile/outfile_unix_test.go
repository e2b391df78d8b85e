//go:build unix

package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/renameio/v2"
)

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := WriteFile(path, []byte(data)); err != nil {
		t.Fatalf("WriteFile(%s): %v", path, err)
	}
}

func content(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func perm(t *testing.T, path string) fs.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Mode().Perm()
}

// noTemps fails if dir holds a temporary file left behind.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	// The temporary files are hidden: "." and the target's name.
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// TestKeepsMode: a 0600 file stays 0600, its inode is replaced (atomic).
func TestKeepsMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	if err := os.WriteFile(p, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, 0o600)
	before, _ := os.Stat(p)
	write(t, p, "new")
	if got := content(t, p); got != "new" {
		t.Errorf("content %q", got)
	}
	if got := perm(t, p); got != 0o600 {
		t.Errorf("mode %04o, want 0600", got)
	}
	after, _ := os.Stat(p)
	if os.SameFile(before, after) {
		t.Errorf("written in place, want a rename over it")
	}
	// Bits the umask would take off are kept too.
	os.Chmod(p, 0o666)
	write(t, p, "newer")
	if got := perm(t, p); got != 0o666 {
		t.Errorf("mode %04o, want 0666", got)
	}
	noTemps(t, dir)
}

// TestNewFileFollowsUmask: a new file gets 0666 less the umask.
func TestNewFileFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "out")
	write(t, p, "x")
	if got := perm(t, p); got != 0o600 {
		t.Errorf("mode %04o under umask 077, want 0600", got)
	}
	syscall.Umask(0o022)
	q := filepath.Join(t.TempDir(), "out")
	write(t, q, "x")
	if got := perm(t, q); got != 0o644 {
		t.Errorf("mode %04o under umask 022, want 0644", got)
	}
}

// TestKeepsOwner: a file of another user keeps its owner (root only).
func TestKeepsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a file of another user takes root to make")
	}
	p := filepath.Join(t.TempDir(), "out")
	os.WriteFile(p, []byte("old"), 0o644)
	if err := os.Chown(p, 4242, 4343); err != nil {
		t.Fatal(err)
	}
	write(t, p, "new")
	fi, _ := os.Stat(p)
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != 4242 || st.Gid != 4343 {
		t.Errorf("owner %d:%d, want 4242:4343", st.Uid, st.Gid)
	}
}

// TestSymlink: the link stays a link; its target gets the content.
func TestSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("old"), 0o640)
	os.Chmod(target, 0o640)
	link := filepath.Join(dir, "link")
	if err := os.Symlink("target", link); err != nil {
		t.Fatal(err)
	}
	write(t, link, "new")
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi, err)
	}
	if got := content(t, target); got != "new" {
		t.Errorf("target holds %q", got)
	}
	if got := perm(t, target); got != 0o640 {
		t.Errorf("target mode %04o, want 0640", got)
	}
	// A dangling link: its target is created.
	dangling := filepath.Join(dir, "dangling")
	os.Symlink("absent", dangling)
	write(t, dangling, "made")
	if got := content(t, filepath.Join(dir, "absent")); got != "made" {
		t.Errorf("dangling link's target holds %q", got)
	}
	noTemps(t, dir)
}

// TestFIFO: a FIFO is written through, not renamed over.
func TestFIFO(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
	got := make(chan string)
	go func() {
		f, err := os.Open(p)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	write(t, p, "through")
	select {
	case s := <-got:
		if s != "through" {
			t.Errorf("reader got %q", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("nothing was written into the FIFO")
	}
	if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", fi.Mode())
	}
	noTemps(t, dir)
}

// TestCharDevice: a character device made here (the null device's
// numbers, in a temporary directory, never the machine's /dev/null) is
// written through and stays a device.
func TestCharDevice(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mknod takes root")
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "null")
	if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v", err)
	}
	write(t, p, "discarded")
	fi, err := os.Lstat(p)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("the device was replaced: %v %v", fi, err)
	}
	noTemps(t, dir)
}

// TestReadOnlyDirectory: where no temporary file can be made beside the
// target (a directory the user cannot write), the file is written in
// place, keeping its inode. Root ignores directory write bits, so under
// root the failure is injected.
func TestReadOnlyDirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old content, longer"), 0o666)
	os.Chmod(p, 0o666)
	before, _ := os.Stat(p)
	if os.Geteuid() == 0 {
		createBeside = func(string, fs.FileMode) (*renameio.PendingFile, error) { return nil, fs.ErrPermission }
		defer func() { createBeside = newPending }()
	} else {
		os.Chmod(dir, 0o555)
		defer os.Chmod(dir, 0o755)
	}
	f, err := Create(p)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	f.Abort()
	if got := content(t, p); got != "old content, longer" {
		t.Errorf("an aborted write changed the file: %q", got)
	}
	write(t, p, "new")
	if got := content(t, p); got != "new" {
		t.Errorf("content %q", got)
	}
	after, _ := os.Stat(p)
	if !os.SameFile(before, after) || perm(t, p) != 0o666 {
		t.Errorf("not written in place (same file %v, mode %04o)", os.SameFile(before, after), perm(t, p))
	}
}

// TestRenameFails: a rename refused after the temporary file was made
// (a bind-mounted target, say) falls back to writing in place.
func TestRenameFails(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out")
	os.WriteFile(p, []byte("old"), 0o644)
	replaceTarget = func(pf *renameio.PendingFile) error {
		return &os.LinkError{Op: "rename", Old: pf.Name(), New: p, Err: syscall.EBUSY}
	}
	defer func() { replaceTarget = (*renameio.PendingFile).CloseAtomicallyReplace }()
	write(t, p, "new")
	if got := content(t, p); got != "new" {
		t.Errorf("content %q", got)
	}
	noTemps(t, dir)
}

// TestAbortLeavesOldOrNothing: an aborted write leaves an existing file
// as it was and creates no new one.
func TestAbortLeavesOldOrNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "old")
	os.WriteFile(p, []byte("old"), 0o644)
	os.Symlink("absent", filepath.Join(dir, "dangling"))
	for _, path := range []string{p, filepath.Join(dir, "new"), filepath.Join(dir, "dangling")} {
		f, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("half"))
		f.Abort()
	}
	if got := content(t, p); got != "old" {
		t.Errorf("old file holds %q", got)
	}
	for _, name := range []string{"new", "absent"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("an aborted new file %s exists: %v", name, err)
		}
	}
	noTemps(t, dir)
}

// TestDirectoryRefused: a directory is not written over.
func TestDirectoryRefused(t *testing.T) {
	if _, err := Create(t.TempDir()); err == nil {
		t.Errorf("a directory was accepted")
	}
}
