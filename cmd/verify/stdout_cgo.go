//go:build cgo && unix

package main

/*
#include <fcntl.h>

// stdout_closed records, before the Go runtime starts, whether the
// process began with file descriptor 1 closed (the shell's >&-). The Go
// runtime then opens /dev/null there, after which a closed stdout cannot
// be told from >/dev/null; a constructor runs before it does.
static int stdout_closed;

__attribute__((constructor)) static void verify_check_stdout(void) {
	stdout_closed = fcntl(1, F_GETFD) < 0;
}

static int verify_stdout_closed(void) { return stdout_closed; }
*/
import "C"

// stdoutClosedAtStart reports whether the process started with its
// standard output closed.
func stdoutClosedAtStart() bool { return C.verify_stdout_closed() != 0 }
