// Package iceberg commits Parquet data files to an Apache Iceberg table
// (format version 2) kept in a directory, partitioned by the identity of
// one DATE column, so that any engine that reads Iceberg reads them as
// one table, with its days as partitions.
//
// # Layout
//
//	DIR/data/...                     the data files (the caller writes them)
//	DIR/metadata/vN.metadata.json    the table's metadata, one file per commit
//	DIR/metadata/version-hint.text   N, the newest
//	DIR/metadata/snap-ID-....avro    a snapshot's manifest list
//	DIR/metadata/....avro            a snapshot's manifest of its added files
//
// A commit appends one snapshot whose manifest names the files it adds;
// the snapshots before stay as they are (time travel reads them). It
// writes vN+1.metadata.json with a hard link, which fails if another
// commit took N+1 meanwhile: the commit then reads the table again and
// retries. A commit is named by its snapshot id: committing an id the
// table has already is refused with [ErrCommitted], so a retried commit
// adds nothing.
//
// # Paths
//
// The metadata names files by URL, under the table's location: the
// file: URL of DIR by default, or the URL the table will be read at (an
// s3:// or gs:// location, where the directory is copied whole). The
// engines that read a table from a local copy (ClickHouse's icebergLocal)
// resolve those URLs relative to the location, so a table written for a
// bucket is read from the directory as well.
//
// Directories are made 0755 and files 0644: an engine reading the table
// as another user reads every file.
package iceberg

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/iskorotkov/avro/v2/ocf"
)

// Field is a column of the table's schema: its field id, name and type,
// a primitive type name ("string", "long", "date", ...) or a [List].
// Every column is optional (nullable).
type Field struct {
	ID   int
	Name string
	Type any
}

// List is the type of a list column of optional elements.
type List struct {
	ElementID int
	Element   string
}

// DataFile is one Parquet file a commit adds.
type DataFile struct {
	Path    string    // in the table's directory, slash-separated: data/...
	Day     time.Time // its rows' value of the partition column
	Records int64
	Bytes   int64
}

// Commit is one append to a table.
type Commit struct {
	// Location is the table's URL; "" is the file: URL of its
	// directory. It is fixed when the table is made: another is refused.
	Location string
	// Schema is the table's columns; Partition names the DATE column of
	// Schema the table is partitioned by. A table made with another
	// schema is refused.
	Schema    []Field
	Partition string
	// SnapshotID names the commit (positive); Summary is added to its
	// snapshot's summary, Properties to the table's.
	SnapshotID int64
	Summary    map[string]string
	Properties map[string]string
	Files      []DataFile
	// Now is the commit's time, the snapshot's timestamp.
	Now time.Time
}

// ErrCommitted is Append's answer when the table holds the commit's
// snapshot already.
var ErrCommitted = errors.New("the table holds this snapshot already")

// partitionFieldID is the partition field's id: the specification's
// first.
const partitionFieldID = 1000

// commitTries is how many times a commit reads the table again after
// another commit took the metadata version it was writing.
const commitTries = 10

// Append commits c to the table in dir, making the table if dir holds
// none.
func Append(dir string, c Commit) error {
	if c.SnapshotID <= 0 {
		return fmt.Errorf("iceberg: snapshot id %d: want a positive id", c.SnapshotID)
	}
	src := -1
	for _, f := range c.Schema {
		if f.Name == c.Partition && f.Type == "date" {
			src = f.ID
		}
	}
	if src < 0 {
		return fmt.Errorf("iceberg: no DATE column %q in the schema to partition by", c.Partition)
	}
	for try := 0; ; try++ {
		err := appendOnce(dir, c, src)
		if !errors.Is(err, fs.ErrExist) || try == commitTries {
			return err
		}
	}
}

func appendOnce(dir string, c Commit, src int) error {
	meta, version, err := Read(dir)
	if err != nil {
		return err
	}
	schema := schemaJSON(c.Schema)
	if meta == nil {
		meta = newTable(dir, c, schema, src)
	} else if err := meta.accepts(dir, c, schema, src); err != nil {
		return err
	}
	for _, s := range meta.Snapshots {
		if s.ID == c.SnapshotID {
			return ErrCommitted
		}
	}
	mdir := filepath.Join(dir, "metadata")
	if err := MkdirReadable(mdir); err != nil {
		return err
	}
	seq := meta.LastSequenceNumber + 1
	tag := randomID()

	// The manifest of the added files.
	var added, total, bytes int64
	var lower, upper time.Time
	entries := make([]any, len(c.Files))
	for i, f := range c.Files {
		day := f.Day.UTC()
		if i == 0 || day.Before(lower) {
			lower = day
		}
		if i == 0 || day.After(upper) {
			upper = day
		}
		added += f.Records
		bytes += f.Bytes
		entries[i] = manifestEntry{Status: 1, SnapshotID: &c.SnapshotID, DataFile: dataFile{
			Format: "PARQUET", Path: meta.url(f.Path), Partition: map[string]any{c.Partition: day},
			Records: f.Records, Bytes: f.Bytes,
		}}
	}
	specJSON, _ := json.Marshal(meta.Specs[0].Fields)
	schemaText, _ := json.Marshal(meta.Schemas[0])
	manifestName := tag + "-m0.avro"
	mlen, err := writeAvro(filepath.Join(mdir, manifestName), fmt.Sprintf(manifestSchema, c.Partition), map[string][]byte{
		"schema": schemaText, "schema-id": []byte("0"), "partition-spec": specJSON, "partition-spec-id": []byte("0"),
		"format-version": []byte("2"), "content": []byte("data"),
	}, entries)
	if err != nil {
		return err
	}

	// The manifest list: the parent snapshot's manifests and this one.
	var list []any
	var parent *int64
	if cur := meta.current(); cur != nil {
		parent = &cur.ID
		old, err := readManifestList(meta.local(dir, cur.ManifestList))
		if err != nil {
			return err
		}
		for _, m := range old {
			list = append(list, m)
		}
		if n, err := strconv.ParseInt(cur.Summary["total-records"], 10, 64); err == nil {
			total = n
		}
	}
	lb, ub := dateBound(lower), dateBound(upper)
	parts := []fieldSummary{{LowerBound: &lb, UpperBound: &ub}}
	list = append(list, manifestFile{
		Path: meta.url("metadata/" + manifestName), Length: mlen, SequenceNumber: seq, MinSequenceNumber: seq,
		AddedSnapshotID: c.SnapshotID, AddedFiles: int32(len(c.Files)), AddedRows: added, Partitions: &parts,
	})
	listName := fmt.Sprintf("snap-%d-1-%s.avro", c.SnapshotID, tag)
	listMeta := map[string][]byte{"snapshot-id": []byte(strconv.FormatInt(c.SnapshotID, 10)), "sequence-number": []byte(strconv.FormatInt(seq, 10)), "format-version": []byte("2")}
	if parent != nil {
		listMeta["parent-snapshot-id"] = []byte(strconv.FormatInt(*parent, 10))
	}
	if _, err := writeAvro(filepath.Join(mdir, listName), manifestListSchema, listMeta, list); err != nil {
		return err
	}

	// The new metadata.
	ms := c.Now.UnixMilli()
	summary := map[string]string{
		"operation": "append", "added-data-files": strconv.Itoa(len(c.Files)), "added-records": strconv.FormatInt(added, 10),
		"added-files-size": strconv.FormatInt(bytes, 10), "total-records": strconv.FormatInt(total+added, 10),
	}
	for k, v := range c.Summary {
		summary[k] = v
	}
	snap := Snapshot{ID: c.SnapshotID, Parent: parent, SequenceNumber: seq, TimestampMS: ms, Summary: summary,
		ManifestList: meta.url("metadata/" + listName), SchemaID: 0}
	prev := filepath.Join(mdir, fmt.Sprintf("v%d.metadata.json", version))
	if version > 0 {
		meta.MetadataLog = append(meta.MetadataLog, metadataLogEntry{TimestampMS: meta.LastUpdatedMS, File: meta.url("metadata/" + filepath.Base(prev))})
	}
	meta.Snapshots = append(meta.Snapshots, snap)
	meta.SnapshotLog = append(meta.SnapshotLog, snapshotLogEntry{TimestampMS: ms, SnapshotID: c.SnapshotID})
	meta.CurrentSnapshotID = &snap.ID
	meta.Refs = map[string]ref{"main": {SnapshotID: snap.ID, Type: "branch"}}
	meta.LastSequenceNumber = seq
	meta.LastUpdatedMS = ms
	for k, v := range c.Properties {
		meta.Properties[k] = v
	}
	text, err := json.MarshalIndent(meta, "", "  ")
	if err != nil {
		return err
	}
	next := filepath.Join(mdir, fmt.Sprintf("v%d.metadata.json", version+1))
	if err := publish(next, append(text, '\n')); err != nil {
		return err // fs.ErrExist: another commit took the version
	}
	// The hint names the newest version on disk, which a commit that
	// took the next one meanwhile may have written already.
	_, newest, err := Read(dir)
	if err != nil {
		return err
	}
	return writeFile(filepath.Join(mdir, "version-hint.text"), []byte(strconv.Itoa(max(newest, version+1))))
}

// Metadata is a table's metadata file (format version 2), as far as
// this package reads and writes it.
type Metadata struct {
	FormatVersion      int                `json:"format-version"`
	UUID               string             `json:"table-uuid"`
	Location           string             `json:"location"`
	LastSequenceNumber int64              `json:"last-sequence-number"`
	LastUpdatedMS      int64              `json:"last-updated-ms"`
	LastColumnID       int                `json:"last-column-id"`
	CurrentSchemaID    int                `json:"current-schema-id"`
	Schemas            []schema           `json:"schemas"`
	DefaultSpecID      int                `json:"default-spec-id"`
	Specs              []spec             `json:"partition-specs"`
	LastPartitionID    int                `json:"last-partition-id"`
	DefaultSortOrderID int                `json:"default-sort-order-id"`
	SortOrders         []sortOrder        `json:"sort-orders"`
	Properties         map[string]string  `json:"properties"`
	CurrentSnapshotID  *int64             `json:"current-snapshot-id"`
	Refs               map[string]ref     `json:"refs"`
	Snapshots          []Snapshot         `json:"snapshots"`
	SnapshotLog        []snapshotLogEntry `json:"snapshot-log"`
	MetadataLog        []metadataLogEntry `json:"metadata-log"`
}

// Snapshot is one commit of the table.
type Snapshot struct {
	ID             int64             `json:"snapshot-id"`
	Parent         *int64            `json:"parent-snapshot-id,omitempty"`
	SequenceNumber int64             `json:"sequence-number"`
	TimestampMS    int64             `json:"timestamp-ms"`
	Summary        map[string]string `json:"summary"`
	ManifestList   string            `json:"manifest-list"`
	SchemaID       int               `json:"schema-id"`
}

type schema struct {
	Type     string            `json:"type"`
	SchemaID int               `json:"schema-id"`
	Fields   []json.RawMessage `json:"fields"`
}

type spec struct {
	SpecID int         `json:"spec-id"`
	Fields []specField `json:"fields"`
}

type specField struct {
	Name      string `json:"name"`
	Transform string `json:"transform"`
	SourceID  int    `json:"source-id"`
	FieldID   int    `json:"field-id"`
}

type sortOrder struct {
	OrderID int   `json:"order-id"`
	Fields  []any `json:"fields"`
}

type ref struct {
	SnapshotID int64  `json:"snapshot-id"`
	Type       string `json:"type"`
}

type snapshotLogEntry struct {
	TimestampMS int64 `json:"timestamp-ms"`
	SnapshotID  int64 `json:"snapshot-id"`
}

type metadataLogEntry struct {
	TimestampMS int64  `json:"timestamp-ms"`
	File        string `json:"metadata-file"`
}

var versionName = regexp.MustCompile(`^v([0-9]+)\.metadata\.json$`)

// Read reads the newest metadata of the table in dir and its version;
// a dir with no metadata is no table: nil, 0.
func Read(dir string) (*Metadata, int, error) {
	ents, err := os.ReadDir(filepath.Join(dir, "metadata"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	version := 0
	for _, e := range ents {
		if m := versionName.FindStringSubmatch(e.Name()); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > version {
				version = n
			}
		}
	}
	if version == 0 {
		return nil, 0, nil
	}
	p := filepath.Join(dir, "metadata", fmt.Sprintf("v%d.metadata.json", version))
	text, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, err
	}
	var m Metadata
	if err := json.Unmarshal(text, &m); err != nil {
		return nil, 0, fmt.Errorf("%s: not Iceberg table metadata: %v", p, err)
	}
	if m.FormatVersion != 2 || len(m.Schemas) != 1 || len(m.Specs) != 1 || m.Properties == nil {
		return nil, 0, fmt.Errorf("%s: not a table this tool wrote (format version 2, one schema, one partition spec)", p)
	}
	return &m, version, nil
}

func newTable(dir string, c Commit, fields []json.RawMessage, src int) *Metadata {
	loc := strings.TrimSuffix(c.Location, "/")
	if loc == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			abs = dir
		}
		loc = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	last := 0
	for _, f := range c.Schema {
		last = max(last, f.ID)
		if l, ok := f.Type.(List); ok {
			last = max(last, l.ElementID)
		}
	}
	return &Metadata{
		FormatVersion: 2, UUID: randomUUID(), Location: loc, LastColumnID: last,
		Schemas:         []schema{{Type: "struct", Fields: fields}},
		Specs:           []spec{{Fields: []specField{{Name: c.Partition, Transform: "identity", SourceID: src, FieldID: partitionFieldID}}}},
		LastPartitionID: partitionFieldID,
		SortOrders:      []sortOrder{{Fields: []any{}}},
		Properties:      map[string]string{"write.format.default": "parquet"},
		Refs:            map[string]ref{},
		Snapshots:       []Snapshot{}, SnapshotLog: []snapshotLogEntry{}, MetadataLog: []metadataLogEntry{},
	}
}

// accepts refuses a commit to m that is not of its location, schema and
// partitioning.
func (m *Metadata) accepts(dir string, c Commit, fields []json.RawMessage, src int) error {
	p := filepath.Join(dir, "metadata")
	if c.Location != "" && strings.TrimSuffix(c.Location, "/") != m.Location {
		return fmt.Errorf("%s: the table's location is %s, not %s", p, m.Location, c.Location)
	}
	have, _ := json.Marshal(m.Schemas[0].Fields)
	want, _ := json.Marshal(fields)
	if !bytes.Equal(compact(have), compact(want)) {
		return fmt.Errorf("%s: the table's columns are not these: a table holds the rows of one build's columns", p)
	}
	if f := m.Specs[0].Fields; len(f) != 1 || f[0].SourceID != src || f[0].Transform != "identity" || f[0].Name != c.Partition {
		return fmt.Errorf("%s: the table is not partitioned by %s", p, c.Partition)
	}
	return nil
}

func compact(b []byte) []byte {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return b
	}
	return out.Bytes()
}

// current is the table's current snapshot, nil for none.
func (m *Metadata) current() *Snapshot {
	if m.CurrentSnapshotID == nil {
		return nil
	}
	for i := range m.Snapshots {
		if m.Snapshots[i].ID == *m.CurrentSnapshotID {
			return &m.Snapshots[i]
		}
	}
	return nil
}

// url is the URL of rel, a slash-separated path in the table's
// directory.
func (m *Metadata) url(rel string) string { return m.Location + "/" + rel }

// local is the file in dir of u, a URL under the table's location.
func (m *Metadata) local(dir, u string) string {
	rel, ok := strings.CutPrefix(u, m.Location+"/")
	if !ok {
		rel = path.Join("metadata", path.Base(u))
	}
	return filepath.Join(dir, filepath.FromSlash(rel))
}

// schemaJSON is fields as the metadata's schema fields.
func schemaJSON(fields []Field) []json.RawMessage {
	out := make([]json.RawMessage, len(fields))
	for i, f := range fields {
		var typ any = f.Type
		if l, ok := f.Type.(List); ok {
			typ = map[string]any{"type": "list", "element-id": l.ElementID, "element": l.Element, "element-required": false}
		}
		out[i], _ = json.Marshal(map[string]any{"id": f.ID, "name": f.Name, "required": false, "type": typ})
	}
	return out
}

// dateBound is a date's single-value serialization: its days since
// 1970-01-01, 4 bytes little-endian.
func dateBound(t time.Time) []byte {
	return binary.LittleEndian.AppendUint32(nil, uint32(int32(t.Unix()/86400)))
}

func readManifestList(p string) ([]manifestFile, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := ocf.NewDecoder(f)
	if err != nil {
		return nil, fmt.Errorf("%s: not a manifest list: %v", p, err)
	}
	var out []manifestFile
	for dec.HasNext() {
		var m manifestFile
		if err := dec.Decode(&m); err != nil {
			return nil, fmt.Errorf("%s: manifest %d: %v", p, len(out)+1, err)
		}
		out = append(out, m)
	}
	if err := dec.Error(); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return out, nil
}

// writeAvro writes rows as an Avro container file of schema with meta,
// and returns its size.
func writeAvro(p, schema string, meta map[string][]byte, rows []any) (int64, error) {
	var buf bytes.Buffer
	enc, err := ocf.NewEncoder(schema, &buf, ocf.WithMetadata(meta), ocf.WithCodec(ocf.Deflate), ocf.WithSchemaMarshaler(ocf.FullSchemaMarshaler))
	if err != nil {
		return 0, fmt.Errorf("iceberg: %s: %v", filepath.Base(p), err)
	}
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return 0, fmt.Errorf("iceberg: %s: %v", filepath.Base(p), err)
		}
	}
	if err := enc.Close(); err != nil {
		return 0, err
	}
	return int64(buf.Len()), writeFile(p, buf.Bytes())
}

// MkdirReadable makes the directory p and those it lacks above it,
// each 0755 whatever the umask: readable by an engine running as
// another user. Directories that exist are left as they are.
func MkdirReadable(p string) error {
	if _, err := os.Stat(p); err == nil {
		return nil
	}
	if parent := filepath.Dir(p); parent != p {
		if err := MkdirReadable(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return os.Chmod(p, 0o755)
}

// writeFile writes data to p whole (a temporary file renamed), 0644.
func writeFile(p string, data []byte) error {
	tmp, err := stage(p, data)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}

// publish writes data to p, which must not exist: fs.ErrExist if it
// does.
func publish(p string, data []byte) error {
	tmp, err := stage(p, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	return os.Link(tmp, p)
}

// stage writes data to a hidden temporary file beside p, flushed, 0644.
func stage(p string, data []byte) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".tmp-")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

func randomID() string {
	var b [16]byte
	rand.Read(b[:])
	return fmt.Sprintf("%x", b[:])
}

func randomUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
