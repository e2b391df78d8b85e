package attest

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// SubjectError is a subject whose file is not as attested: Missing when it
// cannot be read, else its SHA-256 differs.
type SubjectError struct {
	Name    string // the subject's name
	Path    string // where it was looked for
	Want    string
	Got     string // empty when Missing
	Missing bool
	Err     error // why it could not be read
}

func (e *SubjectError) Error() string {
	if e.Missing {
		return e.Path + ": cannot be read: " + e.Err.Error()
	}
	return e.Path + ": changed: sha256 " + e.Got + ", attested " + e.Want
}

func (e *SubjectError) Unwrap() error { return e.Err }

// Resolve is where a subject name is looked for: a relative name under
// root, an absolute one where it says.
func Resolve(root, name string) string {
	if filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(root, filepath.FromSlash(name))
}

// Check compares every subject of st with its file and returns one
// *SubjectError per subject that differs, in subject order: a batch check
// never stops at the first.
func Check(st *Statement, root string) []*SubjectError {
	var out []*SubjectError
	for _, s := range st.Subject {
		path := Resolve(root, s.Name)
		got, err := fileSHA256(path)
		switch {
		case err != nil:
			out = append(out, &SubjectError{Name: s.Name, Path: path, Want: s.SHA256(), Missing: true, Err: err})
		case got != s.SHA256():
			out = append(out, &SubjectError{Name: s.Name, Path: path, Want: s.SHA256(), Got: got})
		}
	}
	return out
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return "", &fs.PathError{Op: "read", Path: path, Err: errors.New("is a directory")}
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FileDescriptor describes the file at path, named name.
func FileDescriptor(name, path string) (Descriptor, error) {
	sum, err := fileSHA256(path)
	return File(name, sum), err
}
