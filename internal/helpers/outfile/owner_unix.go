//go:build unix

package outfile

import (
	"os"
	"syscall"
)

// keepOwner gives f the owner and group of the file fi describes, where
// they differ from what f got.
func keepOwner(f *os.File, fi os.FileInfo) error {
	want, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	got, err := f.Stat()
	if err != nil {
		return err
	}
	if st, ok := got.Sys().(*syscall.Stat_t); ok && st.Uid == want.Uid && st.Gid == want.Gid {
		return nil
	}
	return f.Chown(int(want.Uid), int(want.Gid))
}
