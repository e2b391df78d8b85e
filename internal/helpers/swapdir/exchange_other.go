//go:build !linux

package swapdir

import "errors"

// exchange cannot swap two directories in one step here: Publish
// renames the old one aside first.
func exchange(a, b string) error { return errors.New("no atomic exchange") }
