//go:build !(cgo && unix)

package main

// stdoutClosedAtStart cannot tell without cgo: the Go runtime has put
// /dev/null where a closed stdout was.
func stdoutClosedAtStart() bool { return false }
