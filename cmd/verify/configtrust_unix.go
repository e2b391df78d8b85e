//go:build unix

package main

import (
	"os"
	"syscall"
)

// ownerOK reports whether fi is owned by the effective user or by root,
// and its owner.
func ownerOK(fi os.FileInfo) (uint32, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, true
	}
	return st.Uid, st.Uid == 0 || int(st.Uid) == os.Geteuid()
}
