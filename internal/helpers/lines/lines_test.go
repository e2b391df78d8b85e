package lines

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// result is one call of Read, as the test compares it.
type result struct {
	line    string
	tooLong bool
	err     string // "" or the error's text
}

// readAll calls Read until it returns an error, with a buffer far smaller
// than the lines so that every line crosses bufio's buffer.
func readAll(r io.Reader, max int) []result {
	br := bufio.NewReaderSize(r, 16)
	var got []result
	var buf []byte
	for {
		line, tooLong, err := Read(br, buf, max)
		res := result{line: string(line), tooLong: tooLong}
		if err != nil {
			res.err = err.Error()
		}
		got = append(got, res)
		if line != nil {
			buf = line
		}
		if err != nil {
			return got
		}
	}
}

func TestRead(t *testing.T) {
	t.Parallel()
	const eof = "EOF"
	tests := []struct {
		name string
		in   string
		max  int
		want []result
	}{
		{"empty", "", 8, []result{{err: eof}}},
		{"one unterminated", "abc", 8, []result{{line: "abc", err: eof}}},
		{"one terminated", "abc\n", 8, []result{{line: "abc"}, {err: eof}}},
		{"blank lines kept", "\n\na\n", 8, []result{{}, {}, {line: "a"}, {err: eof}}},
		{"crlf", "a\r\nb\r\n", 8, []result{{line: "a"}, {line: "b"}, {err: eof}}},
		{"lone cr ends no line", "a\rb\n", 8, []result{{line: "a\rb"}, {err: eof}}},
		{"lone cr at the end is text", "a\n\r", 8, []result{{line: "a"}, {line: "\r", err: eof}}},
		{"exactly max", "12345678\n", 8, []result{{line: "12345678"}, {err: eof}}},
		{"exactly max crlf", "12345678\r\n", 8, []result{{line: "12345678"}, {err: eof}}},
		{"exactly max unterminated", "12345678", 8, []result{{line: "12345678", err: eof}}},
		{"max plus one", "123456789\nok\n", 8, []result{{tooLong: true}, {line: "ok"}, {err: eof}}},
		{"max plus one crlf", "123456789\r\nok", 8, []result{{tooLong: true}, {line: "ok", err: eof}}},
		{"max plus one unterminated", "123456789", 8, []result{{tooLong: true, err: eof}}},
		{"long", strings.Repeat("x", 200) + "\nok\n" + strings.Repeat("y", 200), 100,
			[]result{{tooLong: true}, {line: "ok"}, {tooLong: true, err: eof}}},
		{"long within limit", strings.Repeat("x", 200) + "\n", 300,
			[]result{{line: strings.Repeat("x", 200)}, {err: eof}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := readAll(strings.NewReader(tt.in), tt.max)
			if len(got) != len(tt.want) {
				t.Fatalf("got %d results %+.20v, want %d", len(got), got, len(tt.want))
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("call %d: got %+.20v, want %+.20v", i+1, got[i], tt.want[i])
				}
			}
		})
	}
}

// TestReadErrorCutsLineShort: a read error mid-line comes back with what
// was read of the line, so the caller can say which line it cut.
func TestReadErrorCutsLineShort(t *testing.T) {
	t.Parallel()
	broken := errors.New("disk gone")
	r := io.MultiReader(strings.NewReader("one\ntw"), iotest.ErrReader(broken))
	got := readAll(r, 8)
	want := []result{{line: "one"}, {line: "tw", err: broken.Error()}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}

// TestReadReusesBuffer: a line that fits the buffer given is read into its
// storage, so a loop that hands back the last line allocates nothing.
func TestReadReusesBuffer(t *testing.T) {
	br := bufio.NewReader(strings.NewReader("abc\ndef\n"))
	buf := make([]byte, 0, 64)
	line, _, _ := Read(br, buf, 8)
	if &line[0] != &buf[:1][0] {
		t.Fatal("line not read into the buffer given")
	}
	if allocs := testing.AllocsPerRun(1, func() { Read(br, buf, 8) }); allocs != 0 {
		t.Fatalf("%v allocations", allocs)
	}
}
