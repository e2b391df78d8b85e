//go:build !linux

package analytics

import "errors"

// exchange cannot swap two directories in one step here: replaceDir
// renames the old one aside first.
func exchange(a, b string) error { return errors.New("no atomic exchange") }
