// Package lines reads newline-delimited input one line at a time, with a
// length limit that refuses an overlong line without holding it in memory
// and without stopping at it, unlike bufio.Scanner: the reader skips to the
// line's end, so the next line can still be read.
package lines

import (
	"bufio"
	"bytes"
)

// Read returns the next line of br, without its end ("\n" or "\r\n"),
// read into buf's storage.
//
// A line of more than max bytes comes back as tooLong with a nil line: it
// has been read to its end but not kept. A last line without an end is a
// line too, and a lone '\r' at its end is its text, not a line end.
//
// err is br's: io.EOF once the input ends, with the last line (empty when
// the input ended in a line end, or was empty); any other error cuts the
// line short, and line then holds what was read of it.
func Read(br *bufio.Reader, buf []byte, max int) (line []byte, tooLong bool, err error) {
	dst := buf[:0]
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(dst)+len(chunk) > max+2 { // +2: room for "\r\n"
				tooLong, dst = true, nil
			} else {
				dst = append(dst, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		if n := len(dst); n > 0 && dst[n-1] == '\n' {
			dst = bytes.TrimSuffix(dst[:n-1], []byte("\r"))
		}
		if len(dst) > max {
			return nil, true, err
		}
		return dst, false, err
	}
}
