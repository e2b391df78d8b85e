package analytics

// NewFiles is how many inputs of the load brought new bytes: read without
// error and not loaded before (a new file, or a loaded one grown). A
// nightly run with none had no delivery at all.
func (s LoadSummary) NewFiles() int {
	n := 0
	for _, f := range s.Files {
		if f.Err == nil && !f.AlreadyLoaded {
			n++
		}
	}
	return n
}
