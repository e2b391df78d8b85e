package analytics

import (
	"crypto/sha256"
	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/verify"
)

// sink is where one run of a load puts its records (streamrun.Sink): it
// keeps each line's hash and length, and the bytes of those it stores,
// between the passes (keepLine); encodes each receipts row on the
// verifying goroutines (fileLoad.render); and routes the records, which
// arrive in input order, to their files: the records of files[cur] until
// the first record of a later file commits it.
type sink struct {
	l     *loader
	files []*fileLoad
	cur   int
	// bySource finds a record's file on the verifying goroutines; it is
	// only read while the run lasts.
	bySource map[string]*fileLoad
	// keepRaw: an input whose every line is stored is read again for them
	// (streamrun.Options.KeepRaw); otherwise each input is read once, the
	// stream keeping of each line what its row needs (Keep).
	keepRaw bool
}

func (l *loader) newSink(files []*fileLoad) *sink {
	s := &sink{l: l, files: files, bySource: make(map[string]*fileLoad, len(files))}
	for _, f := range files {
		s.bySource[f.key] = f
		if f.rawAll {
			s.keepRaw = true
		}
	}
	for _, f := range files {
		f.hashAt = 1
		if s.keepRaw {
			f.hashAt = 2
		}
	}
	return s
}

// sources are the files as the run's inputs.
func (s *sink) sources() []streamrun.Source {
	srcs := make([]streamrun.Source, len(s.files))
	for i, f := range s.files {
		srcs[i] = f.source()
	}
	return srcs
}

// Keep keeps what a line's row needs (keepLine).
func (s *sink) Keep(dst, raw []byte, sum [sha256.Size]byte, res *verify.Result) []byte {
	return keepLine(dst, raw, sum, res)
}

// Render encodes a record's receipts row on a verifying goroutine.
func (s *sink) Render(dst []byte, rec *streamrun.Record) []byte {
	if f := s.bySource[rec.Source]; f != nil {
		return f.render(dst, rec)
	}
	return nil
}

// Emit routes one result to its file, committing the files before it.
func (s *sink) Emit(rec *streamrun.Record) error {
	for s.files[s.cur].key != rec.Source {
		s.l.committing(s.files[s.cur])
		if err := s.files[s.cur].finish(s.l.opts.OnFile); err != nil {
			return err
		}
		s.cur++
	}
	return s.files[s.cur].add(rec.Result, recordLine(rec).raw, rec.Offset, rec)
}

// finish commits the files after the last one that had records, and the
// small files gathered to be stored together.
func (s *sink) finish() error {
	for ; s.cur < len(s.files); s.cur++ {
		s.l.committing(s.files[s.cur])
		if err := s.files[s.cur].finish(s.l.opts.OnFile); err != nil {
			return err
		}
	}
	return s.l.batch.flush()
}
