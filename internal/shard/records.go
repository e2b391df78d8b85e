package shard

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"os"

	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
)

// A kind is the type of a records column: how it is held in a row group
// and written to Parquet.
type kind int

const (
	kindInt64   kind = iota // INT64 (DuckDB's BIGINT)
	kindString              // BYTE_ARRAY annotated as a UTF-8 string (VARCHAR)
	kindStrings             // a three-level LIST of strings (VARCHAR[])
	kindBlob                // BYTE_ARRAY without annotation (BLOB)
	kindBool                // BOOLEAN
)

// column is one column of records-NNNNN.parquet.
type column struct {
	name string
	kind kind
	null bool // optional; a required column has a value in every row
	dict bool // few distinct values: dictionary-encoded
}

// recordColumns is the columns of records-NNNNN.parquet, in their order
// (see the package documentation). Add gives each row's values in this
// order. A required string is written as it is, "" included; a
// nullable one is NULL for "".
var recordColumns = [...]column{
	{"ord", kindInt64, false, false},
	{"source", kindString, false, true},
	{"line", kindInt64, false, false},
	{"format", kindString, false, true},
	{"verdict", kindString, false, true},
	{"reasons", kindStrings, false, true},
	{"axes", kindString, false, true},
	{"chain_key", kindString, true, false},
	{"link_key", kindString, true, false},
	{"scope_key", kindString, true, true},
	{"nonce_key", kindString, true, false},
	{"state", kindBlob, false, false},
	{"byte_offset", kindInt64, true, false},
	{"byte_length", kindInt64, true, false},
	{"line_sha256", kindBlob, true, false},
	{"receipt_order", kindString, true, false},
	{"claim", kindBool, false, false},
	{"base_verdict", kindString, false, true},
	{"base_reasons", kindString, false, true},
	{"fail_pre", kindString, false, true},
	{"fail_mid", kindString, false, true},
	{"fail_post", kindString, false, true},
	{"skip_pre", kindString, false, true},
	{"skip_mid", kindString, false, true},
	{"skip_post", kindString, false, true},
	{"chain_status", kindString, false, true},
	{"chain_reason", kindString, false, true},
	{"nonce_status", kindString, false, true},
	{"nonce_reason", kindString, false, true},
	{"chain_note", kindString, false, false},
	{"nonce_note", kindString, false, false},
	{"link_prev", kindString, false, false},
	{"chain_what", kindString, false, true},
	{"claim_note", kindString, false, true},
	{"unknown_format", kindBool, false, false},
}

// recordsSchema is the Parquet schema of recordColumns.
func recordsSchema() (*schema.GroupNode, error) {
	fields := make(schema.FieldList, len(recordColumns))
	for i, c := range recordColumns {
		rep := parquet.Repetitions.Required
		if c.null {
			rep = parquet.Repetitions.Optional
		}
		var err error
		switch c.kind {
		case kindInt64:
			fields[i], err = schema.NewPrimitiveNodeLogical(c.name, rep, schema.NewIntLogicalType(64, true), parquet.Types.Int64, 0, -1)
		case kindString:
			fields[i], err = schema.NewPrimitiveNodeLogical(c.name, rep, schema.StringLogicalType{}, parquet.Types.ByteArray, 0, -1)
		case kindBlob:
			fields[i] = schema.NewByteArrayNode(c.name, rep, -1)
		case kindBool:
			fields[i] = schema.NewBooleanNode(c.name, rep, -1)
		case kindStrings:
			// The standard three-level list, its elements optional as
			// DuckDB's VARCHAR[] has them.
			var elem, list schema.Node
			elem, err = schema.NewPrimitiveNodeLogical("element", parquet.Repetitions.Optional, schema.StringLogicalType{}, parquet.Types.ByteArray, 0, -1)
			if err == nil {
				list, err = schema.NewGroupNode("list", parquet.Repetitions.Repeated, schema.FieldList{elem}, -1)
			}
			if err == nil {
				fields[i], err = schema.NewGroupNodeLogical(c.name, rep, schema.FieldList{list}, schema.NewListLogicalType(), -1)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("records column %s: %w", c.name, err)
		}
	}
	return schema.NewGroupNode("schema", parquet.Repetitions.Required, fields, -1)
}

// recordsProps is how a part is written: zstd at level 1 (level 3, the
// default, made the writer's share of the map step's CPU about a third
// larger, for files 0.2% smaller), statistics, a dictionary only for the columns of few values
// (the others' values are mostly distinct: a dictionary would cost its
// hashing and be dropped).
func recordsProps() *parquet.WriterProperties {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDictionaryDefault(false),
		parquet.WithCreatedBy("verify"),
	}
	for _, c := range recordColumns {
		if c.dict {
			path := c.name
			if c.kind == kindStrings {
				path += ".list.element"
			}
			opts = append(opts, parquet.WithDictionaryFor(path, true))
		}
	}
	return parquet.NewWriterProperties(opts...)
}

// colBuf holds one column's values of the rows of a row group, with the
// Parquet levels they need: definition levels for a nullable column or
// a list, repetition levels for a list.
type colBuf struct {
	ints     []int64
	bools    []bool
	data     []byte // byte values end to end
	ends     []int  // where each byte value ends in data
	vals     []parquet.ByteArray
	def, rep []int16
}

func (c *colBuf) reset() {
	c.ints, c.bools, c.data, c.ends = c.ints[:0], c.bools[:0], c.data[:0], c.ends[:0]
	c.def, c.rep = c.def[:0], c.rep[:0]
}

func (c *colBuf) int64(v int64) { c.ints = append(c.ints, v) }

// nullInt64 adds v, or NULL without ok.
func (c *colBuf) nullInt64(v int64, ok bool) {
	if !ok {
		c.def = append(c.def, 0)
		return
	}
	c.def = append(c.def, 1)
	c.ints = append(c.ints, v)
}

func (c *colBuf) bool(v bool) { c.bools = append(c.bools, v) }

func (c *colBuf) str(s string) {
	c.data = append(c.data, s...)
	c.ends = append(c.ends, len(c.data))
}

func (c *colBuf) blob(b []byte) {
	c.data = append(c.data, b...)
	c.ends = append(c.ends, len(c.data))
}

// nullStr adds s, or NULL for "".
func (c *colBuf) nullStr(s string) {
	if s == "" {
		c.def = append(c.def, 0)
		return
	}
	c.def = append(c.def, 1)
	c.str(s)
}

// nullBlob adds b, or NULL without ok.
func (c *colBuf) nullBlob(b []byte, ok bool) {
	if !ok {
		c.def = append(c.def, 0)
		return
	}
	c.def = append(c.def, 1)
	c.blob(b)
}

// list adds a list of n strings, each given by at; an empty list is one
// level with neither a value nor NULL element.
func (c *colBuf) list(n int, at func(int) string) {
	if n == 0 {
		c.def, c.rep = append(c.def, 0), append(c.rep, 0)
		return
	}
	for i := range n {
		r := int16(1)
		if i == 0 {
			r = 0
		}
		c.def, c.rep = append(c.def, 2), append(c.rep, r)
		c.str(at(i))
	}
}

// byteArrays gives the byte values held, as slices of data.
func (c *colBuf) byteArrays() []parquet.ByteArray {
	c.vals = c.vals[:0]
	start := 0
	for _, end := range c.ends {
		c.vals = append(c.vals, c.data[start:end:end])
		start = end
	}
	return c.vals
}

// partFile is one part being written: its row groups go to the file as
// each fills, through a SHA-256 of the bytes written.
type partFile struct {
	path string
	f    *os.File
	sink partSink
	pw   *file.Writer
}

// partSink is what the Parquet writer writes to: the file, buffered,
// and the part's SHA-256. It keeps the first error, as the Parquet
// writer's Close does not return every one.
type partSink struct {
	w   *bufio.Writer
	h   hash.Hash
	err error
}

func (s *partSink) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	s.h.Write(p)
	n, err := s.w.Write(p)
	if err != nil {
		s.err = err
	}
	return n, err
}

func createPart(path string) (*partFile, error) {
	sc, err := recordsSchema()
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	p := &partFile{path: path, f: f, sink: partSink{w: bufio.NewWriterSize(f, 1<<20), h: sha256.New()}}
	p.pw = file.NewParquetWriter(&p.sink, sc, file.WithWriterProps(recordsProps()))
	return p, nil
}

// writeGroup writes the rows cols hold as the part's next row group.
func (p *partFile) writeGroup(cols []colBuf) (err error) {
	defer func() {
		// The Parquet writer panics on some failures.
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: writing a row group: %v", p.path, r)
		}
	}()
	rg := p.pw.AppendRowGroup()
	for i := range cols {
		c := &cols[i]
		cw, err := rg.NextColumn()
		if err != nil {
			return err
		}
		switch cw := cw.(type) {
		case *file.Int64ColumnChunkWriter:
			_, err = cw.WriteBatch(c.ints, c.def, c.rep)
		case *file.BooleanColumnChunkWriter:
			_, err = cw.WriteBatch(c.bools, c.def, c.rep)
		case *file.ByteArrayColumnChunkWriter:
			_, err = cw.WriteBatch(c.byteArrays(), c.def, c.rep)
		default:
			err = fmt.Errorf("records column %s: no writer for %T", recordColumns[i].name, cw)
		}
		if err != nil {
			return err
		}
	}
	if err := rg.Close(); err != nil {
		return err
	}
	return p.sink.err
}

// finish writes the part's footer and flushes the file to the disk; it
// gives the part's SHA-256, in hex.
func (p *partFile) finish() (sum string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: writing the footer: %v", p.path, r)
		}
	}()
	err = p.pw.Close()
	if err == nil {
		err = p.sink.err
	}
	if err == nil {
		err = p.sink.w.Flush()
	}
	if err == nil {
		err = p.f.Sync()
	}
	err = errors.Join(err, p.f.Close())
	p.f = nil
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(p.sink.h.Sum(nil)), nil
}

// abort closes the file unfinished; the attempt directory holding it is
// removed.
func (p *partFile) abort() {
	if p.f != nil {
		p.f.Close()
		p.f = nil
	}
}
