package analytics

// Commit is a file's commit phase as it begins (LoadOptions.Committing):
// what is left to do once its records are verified, so that a progress
// display can say how far the phase has come.
type Commit struct {
	Path    string // Source.Name
	Records int64  // the file's records verified (receipts and rejects rows)
	// Read is the bytes DuckDB reads from the row spools to store what is
	// left of the file: the last chunk of receipts rows twice (the look-up
	// of lines stored already from another file, then the INSERT) and the
	// rejects rows once. A chunk handed over earlier and still being
	// inserted is not counted; a small file's rows, held in memory until
	// they are stored with other small files', count as its last chunk.
	// Compressing and writing the rows and the commit follow the reading.
	Read int64
}

// committing tells LoadOptions.Committing that f's commit phase begins.
func (l *loader) committing(f *fileLoad) {
	if l.opts.Committing == nil {
		return
	}
	c := Commit{Path: f.in.Name, Records: f.sum.Accepted + f.sum.Rejected}
	if f.rows != nil {
		c.Read += 2 * f.rows.size
	}
	c.Read += 2 * int64(len(f.mem)) // a small file's rows, not spooled yet
	if f.rejects != nil {
		c.Read += f.rejects.size
	}
	l.opts.Committing(c)
}
