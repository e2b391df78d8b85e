//go:build duckdb_arrow

package analytics

import (
	"database/sql/driver"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/engine/streamrun"
)

func init() { arrowRowPath = &rowPath{"arrow", storeArrow} }

// arrowBatchRows is the rows of one record batch: a DuckDB row group.
const arrowBatchRows = 122_880

var arrowSchema = func() *arrow.Schema {
	fields := make([]arrow.Field, len(insertColumnList))
	for i, c := range insertColumnList {
		var t arrow.DataType = arrow.BinaryTypes.String
		switch c {
		case "line", "byte_offset", "byte_length", "step":
			t = arrow.PrimitiveTypes.Int64
		case "reasons", "tool_servers":
			t = arrow.ListOf(arrow.BinaryTypes.String)
		case "issued_at":
			t = arrow.FixedWidthTypes.Timestamp_us
		case "day":
			t = arrow.FixedWidthTypes.Date32
		}
		fields[i] = arrow.Field{Name: c, Type: t, Nullable: true}
	}
	return arrow.NewSchema(fields, nil)
}()

// storeArrow builds record batches from the rows as DuckDB scans them
// (a reader that makes each batch on Next) and inserts them with one
// INSERT ... SELECT from the registered view.
func storeArrow(b *testing.B, db *DB, rows []benchRow) {
	withDriverConn(b, db, func(dc driver.Conn) error {
		ar, err := duckdb.NewArrowFromConn(dc)
		if err != nil {
			return err
		}
		rd := &benchReader{rows: rows, b: array.NewRecordBuilder(memory.DefaultAllocator, arrowSchema)}
		rd.refs.Store(1)
		release, err := ar.RegisterView(rd, "bench_rows")
		if err != nil {
			return err
		}
		defer release()
		_, err = dc.(driver.ExecerContext).ExecContext(b.Context(),
			"INSERT INTO receipts ("+strings.Join(insertColumnList, ", ")+") SELECT * FROM bench_rows", nil)
		return err
	})
}

// benchReader is an array.RecordReader making a batch of rows per Next.
type benchReader struct {
	refs atomic.Int64
	rows []benchRow
	b    *array.RecordBuilder
	cur  arrow.RecordBatch
}

func (r *benchReader) Retain() { r.refs.Add(1) }
func (r *benchReader) Release() {
	if r.refs.Add(-1) == 0 && r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}
func (r *benchReader) Schema() *arrow.Schema          { return arrowSchema }
func (r *benchReader) Record() arrow.RecordBatch      { return r.cur }
func (r *benchReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *benchReader) Err() error                     { return nil }

func (r *benchReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if len(r.rows) == 0 {
		return false
	}
	n := min(len(r.rows), arrowBatchRows)
	batch := r.rows[:n]
	r.rows = r.rows[n:]
	bl := r.b
	str := func(i int) *array.StringBuilder { return bl.Field(i).(*array.StringBuilder) }
	i64 := func(i int) *array.Int64Builder { return bl.Field(i).(*array.Int64Builder) }
	opt := func(i int, s string) {
		if s == "" {
			str(i).AppendNull()
		} else {
			str(i).Append(s)
		}
	}
	list := func(i int, ss []string, nullEmpty bool) {
		lb := bl.Field(i).(*array.ListBuilder)
		if nullEmpty && len(ss) == 0 {
			lb.AppendNull()
			return
		}
		lb.Append(true)
		vb := lb.ValueBuilder().(*array.StringBuilder)
		for _, s := range ss {
			vb.Append(s)
		}
	}
	loadDay, _ := time.Parse(time.DateOnly, benchDay)
	var hexSum [64]byte
	for _, row := range batch {
		res, f := row.res, &row.res.Fields
		str(0).Append(benchSHA)
		str(1).Append("bench")
		i64(2).Append(int64(res.Line))
		i64(3).Append(row.offset)
		i64(4).Append(row.line.length)
		hexEncode(hexSum[:], row.line.sum[:])
		str(5).Append(string(hexSum[:]))
		str(6).Append(res.Format)
		str(7).Append(string(res.Verdict))
		list(8, reasonStrings(res.Reasons), false)
		opt(9, f.ActionID)
		opt(10, f.AgentID)
		opt(11, f.IssuerID)
		opt(12, f.OrgID)
		opt(13, f.SessionID)
		if f.Step != nil {
			i64(14).Append(*f.Step)
		} else {
			i64(14).AppendNull()
		}
		opt(15, f.ActionType)
		opt(16, f.ToolName)
		opt(17, f.ToolFingerprint)
		str(18).Append(toolMatchOf(res))
		list(19, f.ToolServers, true)
		opt(20, f.Nonce)
		opt(21, res.Fingerprints.CallSignature)
		opt(22, signatureSHA256(f))
		opt(23, f.PreviousHash)
		opt(24, res.Fingerprints.ChainHash)
		if res.Fingerprints.ChainHash != "" {
			str(25).Append(streamrun.ScopeDigest(res.ScopeKey()))
		} else {
			str(25).AppendNull()
		}
		opt(26, f.Decision)
		day := loadDay
		if t, ok := res.IssuedTime(); ok {
			bl.Field(27).(*array.TimestampBuilder).Append(arrow.Timestamp(t.UnixMicro()))
			day = t.UTC()
		} else {
			bl.Field(27).(*array.TimestampBuilder).AppendNull()
		}
		bl.Field(28).(*array.Date32Builder).Append(arrow.Date32FromTime(day))
		if row.line.has {
			str(29).Append(string(row.line.raw))
		} else {
			str(29).AppendNull()
		}
		opt(30, streamrun.NonceDigest(res.NonceKey()))
		str(31).Append(benchTrust)
	}
	r.cur = bl.NewRecordBatch()
	return true
}
