package iceberg

// The Avro files of a table's metadata, as the Iceberg specification
// (format version 2) names their fields and field ids: the manifest list
// of a snapshot and the manifests it names.

// manifestListSchema is the manifest_file record of a manifest list.
const manifestListSchema = `{"type": "record", "name": "manifest_file", "fields": [
 {"name": "manifest_path", "type": "string", "field-id": 500},
 {"name": "manifest_length", "type": "long", "field-id": 501},
 {"name": "partition_spec_id", "type": "int", "field-id": 502},
 {"name": "content", "type": "int", "field-id": 517},
 {"name": "sequence_number", "type": "long", "field-id": 515},
 {"name": "min_sequence_number", "type": "long", "field-id": 516},
 {"name": "added_snapshot_id", "type": "long", "field-id": 503},
 {"name": "added_files_count", "type": "int", "field-id": 504},
 {"name": "existing_files_count", "type": "int", "field-id": 505},
 {"name": "deleted_files_count", "type": "int", "field-id": 506},
 {"name": "added_rows_count", "type": "long", "field-id": 512},
 {"name": "existing_rows_count", "type": "long", "field-id": 513},
 {"name": "deleted_rows_count", "type": "long", "field-id": 514},
 {"name": "partitions", "type": ["null", {"type": "array", "element-id": 508, "items": {"type": "record", "name": "r508", "fields": [
   {"name": "contains_null", "type": "boolean", "field-id": 509},
   {"name": "contains_nan", "type": ["null", "boolean"], "default": null, "field-id": 518},
   {"name": "lower_bound", "type": ["null", "bytes"], "default": null, "field-id": 510},
   {"name": "upper_bound", "type": ["null", "bytes"], "default": null, "field-id": 511}]}}], "default": null, "field-id": 507},
 {"name": "key_metadata", "type": ["null", "bytes"], "default": null, "field-id": 519}]}`

// manifestFile is one row of a manifest list.
type manifestFile struct {
	Path              string          `avro:"manifest_path"`
	Length            int64           `avro:"manifest_length"`
	SpecID            int32           `avro:"partition_spec_id"`
	Content           int32           `avro:"content"`
	SequenceNumber    int64           `avro:"sequence_number"`
	MinSequenceNumber int64           `avro:"min_sequence_number"`
	AddedSnapshotID   int64           `avro:"added_snapshot_id"`
	AddedFiles        int32           `avro:"added_files_count"`
	ExistingFiles     int32           `avro:"existing_files_count"`
	DeletedFiles      int32           `avro:"deleted_files_count"`
	AddedRows         int64           `avro:"added_rows_count"`
	ExistingRows      int64           `avro:"existing_rows_count"`
	DeletedRows       int64           `avro:"deleted_rows_count"`
	Partitions        *[]fieldSummary `avro:"partitions"`
	KeyMetadata       *[]byte         `avro:"key_metadata"`
}

// fieldSummary is a partition field's bounds over a manifest's files.
type fieldSummary struct {
	ContainsNull bool    `avro:"contains_null"`
	ContainsNaN  *bool   `avro:"contains_nan"`
	LowerBound   *[]byte `avro:"lower_bound"`
	UpperBound   *[]byte `avro:"upper_bound"`
}

// manifestSchema is the manifest_entry record of a manifest of data
// files partitioned by one date column (the partition field day, id
// 1000). The optional maps of column statistics are declared, and left
// null.
const manifestSchema = `{"type": "record", "name": "manifest_entry", "fields": [
 {"name": "status", "type": "int", "field-id": 0},
 {"name": "snapshot_id", "type": ["null", "long"], "default": null, "field-id": 1},
 {"name": "sequence_number", "type": ["null", "long"], "default": null, "field-id": 3},
 {"name": "file_sequence_number", "type": ["null", "long"], "default": null, "field-id": 4},
 {"name": "data_file", "field-id": 2, "type": {"type": "record", "name": "r2", "fields": [
  {"name": "content", "type": "int", "field-id": 134},
  {"name": "file_path", "type": "string", "field-id": 100},
  {"name": "file_format", "type": "string", "field-id": 101},
  {"name": "partition", "field-id": 102, "type": {"type": "record", "name": "r102", "fields": [
    {"name": "%s", "type": ["null", {"type": "int", "logicalType": "date"}], "default": null, "field-id": 1000}]}},
  {"name": "record_count", "type": "long", "field-id": 103},
  {"name": "file_size_in_bytes", "type": "long", "field-id": 104},
  {"name": "column_sizes", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k117_v118", "fields": [
    {"name": "key", "type": "int", "field-id": 117}, {"name": "value", "type": "long", "field-id": 118}]}}], "default": null, "field-id": 108},
  {"name": "value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k119_v120", "fields": [
    {"name": "key", "type": "int", "field-id": 119}, {"name": "value", "type": "long", "field-id": 120}]}}], "default": null, "field-id": 109},
  {"name": "null_value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k121_v122", "fields": [
    {"name": "key", "type": "int", "field-id": 121}, {"name": "value", "type": "long", "field-id": 122}]}}], "default": null, "field-id": 110},
  {"name": "nan_value_counts", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k138_v139", "fields": [
    {"name": "key", "type": "int", "field-id": 138}, {"name": "value", "type": "long", "field-id": 139}]}}], "default": null, "field-id": 137},
  {"name": "lower_bounds", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k126_v127", "fields": [
    {"name": "key", "type": "int", "field-id": 126}, {"name": "value", "type": "bytes", "field-id": 127}]}}], "default": null, "field-id": 125},
  {"name": "upper_bounds", "type": ["null", {"type": "array", "logicalType": "map", "items": {"type": "record", "name": "k129_v130", "fields": [
    {"name": "key", "type": "int", "field-id": 129}, {"name": "value", "type": "bytes", "field-id": 130}]}}], "default": null, "field-id": 128},
  {"name": "key_metadata", "type": ["null", "bytes"], "default": null, "field-id": 131},
  {"name": "split_offsets", "type": ["null", {"type": "array", "items": "long", "element-id": 133}], "default": null, "field-id": 132},
  {"name": "equality_ids", "type": ["null", {"type": "array", "items": "int", "element-id": 136}], "default": null, "field-id": 135},
  {"name": "sort_order_id", "type": ["null", "int"], "default": null, "field-id": 140}]}}]}`

// manifestEntry is one data file of a manifest.
type manifestEntry struct {
	Status             int32    `avro:"status"` // 1: added
	SnapshotID         *int64   `avro:"snapshot_id"`
	SequenceNumber     *int64   `avro:"sequence_number"`      // null: the snapshot's, inherited
	FileSequenceNumber *int64   `avro:"file_sequence_number"` // null: the snapshot's, inherited
	DataFile           dataFile `avro:"data_file"`
}

type dataFile struct {
	Content     int32          `avro:"content"` // 0: data
	Path        string         `avro:"file_path"`
	Format      string         `avro:"file_format"`
	Partition   map[string]any `avro:"partition"`
	Records     int64          `avro:"record_count"`
	Bytes       int64          `avro:"file_size_in_bytes"`
	ColumnSizes *[]kvLong      `avro:"column_sizes"`
	ValueCounts *[]kvLong      `avro:"value_counts"`
	NullCounts  *[]kvLong      `avro:"null_value_counts"`
	NaNCounts   *[]kvLong      `avro:"nan_value_counts"`
	Lower       *[]kvBytes     `avro:"lower_bounds"`
	Upper       *[]kvBytes     `avro:"upper_bounds"`
	KeyMetadata *[]byte        `avro:"key_metadata"`
	Splits      *[]int64       `avro:"split_offsets"`
	EqualityIDs *[]int32       `avro:"equality_ids"`
	SortOrderID *int32         `avro:"sort_order_id"`
}

type kvLong struct {
	Key   int32 `avro:"key"`
	Value int64 `avro:"value"`
}

type kvBytes struct {
	Key   int32  `avro:"key"`
	Value []byte `avro:"value"`
}
