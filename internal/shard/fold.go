package shard

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"path/filepath"

	"github.com/receiptverify/verify/internal/engine/streamrun"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/verify"
)

// The fold streams: a shard's records are read part by part and row
// group by row group, in the order the map step wrote them (ord
// ascending), and merged with the judgments of the same ord range, read
// sorted from the judgments table. Memory holds one row group's records
// and their judgments at a time, whatever the size of the shard or the
// run.

// foldShard folds the records of shard s with the rows of the table
// judgments (sorted by ord and kind; only ords of s are read) and calls
// emit with each result in ord order. recordOf turns a first_ord into
// the record's ordinal over the whole run. Every judgment row must meet
// its record: a row of no record, a record with a link or a nonce and no
// row of that kind, or a row of a kind the record has no key for, is an
// *Error naming source.
func foldShard(ctx context.Context, conn *sql.Conn, s *shardDir, source string, recordOf func(int64) (uint64, error), f *streamrun.Folder, emit func(*verify.Result, *streamrun.LineRef) error) error {
	refuse := func(format string, a ...any) error {
		return &Error{Reason: ReasonJudgments, Path: source, Msg: fmt.Sprintf(format, a...) + ": the judgments must judge every record with a link or a nonce of every shard exactly once (run queries/shard/judgments.sql over exactly the run's parts: verify parts)"}
	}
	lo := s.m.Shard << SeqBits
	last := lo + 1<<SeqBits - 1 // the shard's last ord
	var (
		recs []foldRecord
		js   []foldJudgment
		own  []streamrun.Judgment
		prev = lo - 1 // the last record's ord
	)
	for i, p := range s.m.Parts {
		path := filepath.Join(s.dir, p.Name)
		groups, err := rowGroups(ctx, conn, path)
		if err != nil {
			return err
		}
		var rows int64
		for g, grp := range groups {
			recs, err = readPartRecords(ctx, conn, path, grp, recs[:0])
			if err != nil {
				return err
			}
			rows += int64(len(recs))
			for _, r := range recs {
				if r.ord <= prev || r.ord > last {
					return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("record ord %d out of order or of another shard than %d: a part holds its shard's records in ascending ord", r.ord, s.m.Shard)}
				}
				prev = r.ord
			}
			// The judgments of the ords from where the group before
			// stopped to its last record (the shard's end after the
			// last group), so that every judgment of the shard is read
			// once, and one of no record is found.
			hi := prev
			if i == len(s.m.Parts)-1 && g == len(groups)-1 {
				hi = last
			}
			js, err = readJudgments(ctx, conn, lo, hi, js[:0])
			if err != nil {
				return refuse("%v", err)
			}
			j := 0
			for _, r := range recs {
				if j < len(js) && js[j].ord < r.ord {
					return refuse("the %s row of ord %d judges no record", js[j].kind, js[j].ord)
				}
				own = own[:0]
				var chain, nonce, delivery int
				for ; j < len(js) && js[j].ord == r.ord; j++ {
					x := js[j]
					switch {
					case x.kind == "chain" && r.link:
						chain++
					case x.kind == "nonce" && r.nonce:
						nonce++
					case x.kind == "delivery" && r.hash:
						// A receipt delivered again: at most one row, as
						// no manifest counts them.
						if delivery++; delivery > 1 {
							return refuse("record ord %d has %d delivery rows: a record judged twice", r.ord, delivery)
						}
					default:
						return refuse("a %s row for record ord %d, which has no key of that kind", x.kind, r.ord)
					}
					first, err := recordOf(x.first)
					if err != nil {
						return refuse("the %s row of ord %d: %v", x.kind, r.ord, err)
					}
					own = append(own, streamrun.Judgment{Kind: x.kind, Outcome: x.outcome, First: first})
				}
				if chain != btoi(r.link) || nonce != btoi(r.nonce) {
					return refuse("record ord %d has %d chain and %d nonce rows, and needs %d and %d", r.ord, chain, nonce, btoi(r.link), btoi(r.nonce))
				}
				res, err := f.Fold(r.state, own)
				if err != nil {
					return refuse("record ord %d: %v", r.ord, err)
				}
				if err := emit(res, r.line); err != nil {
					return err
				}
			}
			if j < len(js) {
				return refuse("the %s row of ord %d judges no record", js[j].kind, js[j].ord)
			}
			lo = hi + 1
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if rows != p.Rows {
			return &Error{Reason: ReasonPart, Path: path, Msg: fmt.Sprintf("%d records, the manifest says %d", rows, p.Rows)}
		}
	}
	if lo <= last { // no record at all: the judgments must still name none
		js, err := readJudgments(ctx, conn, lo, last, js[:0])
		if err != nil {
			return refuse("%v", err)
		}
		if len(js) > 0 {
			return refuse("the %s row of ord %d judges no record", js[0].kind, js[0].ord)
		}
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// foldRecord is one record of a part, as the fold reads it.
type foldRecord struct {
	ord         int64
	link, nonce bool
	hash        bool // the record has a chain hash: it may be a delivery again
	state       []byte
	line        *streamrun.LineRef // nil for a file that could not be read
}

// ordRange is a range of ords, both ends included.
type ordRange struct{ lo, hi int64 }

// rowGroups are the ord ranges of the row groups of the part at path,
// from their statistics, in file order: the fold reads a part one row
// group at a time. A part without statistics is one range of every ord.
// Statistics are only a guide: the rows are read with a filter on ord,
// and the fold checks that they come in ascending order and as many as
// the manifest counts, so a group missed or read twice is refused.
func rowGroups(ctx context.Context, conn *sql.Conn, path string) ([]ordRange, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, `SELECT TRY_CAST(stats_min_value AS BIGINT), TRY_CAST(stats_max_value AS BIGINT)
FROM parquet_metadata(`+sqltext.String(filepath.ToSlash(abs))+`) WHERE path_in_schema = 'ord' ORDER BY row_group_id`)
	if err != nil {
		return nil, &Error{Reason: ReasonPart, Path: path, Msg: "not a part of a map step: " + err.Error()}
	}
	defer rows.Close()
	var out []ordRange
	for rows.Next() {
		var lo, hi sql.NullInt64
		if err := rows.Scan(&lo, &hi); err != nil {
			return nil, &Error{Reason: ReasonPart, Path: path, Msg: err.Error()}
		}
		if !lo.Valid || !hi.Valid || lo.Int64 > hi.Int64 || (len(out) > 0 && lo.Int64 <= out[len(out)-1].hi) {
			return []ordRange{{0, 1<<63 - 1}}, rows.Err()
		}
		out = append(out, ordRange{lo.Int64, hi.Int64})
	}
	if err := rows.Err(); err != nil {
		return nil, &Error{Reason: ReasonPart, Path: path, Msg: err.Error()}
	}
	if len(out) == 0 {
		out = []ordRange{{0, 1<<63 - 1}}
	}
	return out, nil
}

// readPartRecords appends the records of the part at path whose ords are
// in g, in the order of the file, to recs.
func readPartRecords(ctx context.Context, conn *sql.Conn, path string, g ordRange, recs []foldRecord) ([]foldRecord, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	rows, err := conn.QueryContext(ctx, "SELECT ord, link_key IS NOT NULL, nonce_key IS NOT NULL, chain_key IS NOT NULL, state, byte_offset, byte_length, line_sha256 FROM read_parquet("+sqltext.String(filepath.ToSlash(abs))+") WHERE ord BETWEEN $1 AND $2", g.lo, g.hi)
	if err != nil {
		return nil, &Error{Reason: ReasonPart, Path: path, Msg: "not a part of a map step: " + err.Error()}
	}
	defer rows.Close()
	for rows.Next() {
		var r foldRecord
		var offset, length sql.NullInt64
		var sum []byte
		if err := rows.Scan(&r.ord, &r.link, &r.nonce, &r.hash, &r.state, &offset, &length, &sum); err != nil {
			return nil, &Error{Reason: ReasonPart, Path: path, Msg: err.Error()}
		}
		if offset.Valid && length.Valid && len(sum) == sha256.Size {
			r.line = &streamrun.LineRef{Offset: offset.Int64, Length: length.Int64}
			copy(r.line.SHA256[:], sum)
		}
		recs = append(recs, r)
	}
	if err := rows.Err(); err != nil {
		return nil, &Error{Reason: ReasonPart, Path: path, Msg: err.Error()}
	}
	return recs, nil
}

// foldJudgment is one row of the judgments.
type foldJudgment struct {
	ord, first    int64
	kind, outcome string
}

// readJudgments appends the judgments of ords lo to hi, by ord and kind,
// to js. A NULL kind or outcome reads as "NULL", which no record takes.
func readJudgments(ctx context.Context, conn *sql.Conn, lo, hi int64, js []foldJudgment) ([]foldJudgment, error) {
	rows, err := conn.QueryContext(ctx, `SELECT ord, COALESCE(kind, 'NULL'), COALESCE(outcome, 'NULL'), COALESCE(first_ord, -1)
FROM judgments WHERE ord BETWEEN $1 AND $2 ORDER BY ord, kind`, lo, hi)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var j foldJudgment
		if err := rows.Scan(&j.ord, &j.kind, &j.outcome, &j.first); err != nil {
			return nil, err
		}
		js = append(js, j)
	}
	return js, rows.Err()
}
