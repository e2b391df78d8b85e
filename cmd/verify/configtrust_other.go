//go:build !unix

package main

import "os"

// ownerOK cannot tell owners apart here: every file passes.
func ownerOK(os.FileInfo) (uint32, bool) { return 0, true }
