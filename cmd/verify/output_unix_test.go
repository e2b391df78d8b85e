//go:build unix

package main

import (
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestOutputWritesIntoFile runs the binary with -o on what a user may
// name: a 0600 file keeps its mode, a new file follows the umask, a
// symlink stays a link and its target gets the results, a FIFO and a
// character device are written through and never renamed over.
func TestOutputWritesIntoFile(t *testing.T) {
	verify, err := exec.LookPath("verify")
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.json")
	os.WriteFile(doc, []byte(`{"b":1,"a":2}`), 0o644)
	const want = `{"a":2,"b":1}`
	canon := func(t *testing.T, out string, umask string) {
		t.Helper()
		cmd := exec.Command("sh", "-c", "umask "+umask+"; exec \"$0\" canon -o \"$1\" \"$2\"", verify, out, doc)
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("verify canon -o %s: %v\n%s", out, err, b)
		}
	}
	mode := func(p string) fs.FileMode {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	read := func(p string) string {
		b, _ := os.ReadFile(p)
		return string(b)
	}

	t.Run("0600 file", func(t *testing.T) {
		p := filepath.Join(dir, "private.json")
		os.WriteFile(p, []byte("old"), 0o600)
		canon(t, p, "022")
		if mode(p) != 0o600 || !strings.HasPrefix(read(p), want) {
			t.Errorf("mode %04o, content %q", mode(p), read(p))
		}
	})
	t.Run("new file under umask 077", func(t *testing.T) {
		p := filepath.Join(dir, "new.json")
		canon(t, p, "077")
		if mode(p) != 0o600 {
			t.Errorf("mode %04o, want 0600", mode(p))
		}
	})
	t.Run("symlink", func(t *testing.T) {
		target, link := filepath.Join(dir, "target.json"), filepath.Join(dir, "link.json")
		os.WriteFile(target, []byte("old"), 0o640)
		os.Chmod(target, 0o640)
		os.Symlink("target.json", link)
		canon(t, link, "022")
		fi, err := os.Lstat(link)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			t.Fatalf("the link was replaced: %v", err)
		}
		if mode(target) != 0o640 || !strings.HasPrefix(read(target), want) {
			t.Errorf("target mode %04o, content %q", mode(target), read(target))
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		p := filepath.Join(dir, "fifo")
		if err := syscall.Mkfifo(p, 0o600); err != nil {
			t.Fatal(err)
		}
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(p)
			if err != nil {
				got <- err.Error()
				return
			}
			b, _ := io.ReadAll(f)
			f.Close()
			got <- string(b)
		}()
		canon(t, p, "022")
		select {
		case s := <-got:
			if !strings.HasPrefix(s, want) {
				t.Errorf("the FIFO's reader got %q", s)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("nothing came through the FIFO")
		}
		if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Errorf("the FIFO was replaced")
		}
	})
	t.Run("character device", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("mknod takes root")
		}
		// The null device's numbers, in the test's own directory: never
		// the machine's /dev/null.
		p := filepath.Join(dir, "null")
		if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
			t.Skipf("mknod: %v", err)
		}
		canon(t, p, "022")
		if fi, _ := os.Lstat(p); fi.Mode()&fs.ModeCharDevice == 0 {
			t.Errorf("the device was replaced by a %v", fi.Mode())
		}
	})
	// The temporary files are hidden: "." and the target's name.
	if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
