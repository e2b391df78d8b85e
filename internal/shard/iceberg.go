package shard

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/receiptverify/verify/internal/analytics/exportdir"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
	"github.com/receiptverify/verify/internal/shard/iceberg"
)

// IcebergCommit is what CommitIceberg added to a table.
type IcebergCommit struct {
	SnapshotID int64
	Files      int
	Receipts   int64
	// Committed is false when the table held the run already: nothing
	// was added.
	Committed bool
}

// icebergDay is the receipts table's partition column: the UTC day of
// each receipt, the directory day=YYYY-MM-DD of the folds' files.
const icebergDay = "day"

// CommitIceberg commits the receipts of a run folded with --receipts
// (folds.Tables) to the Apache Iceberg table in dir, partitioned by day,
// making the table if dir holds none: each fold's file is written again
// into dir/data/day=YYYY-MM-DD/, with the day as a column and the
// table's field ids, then one snapshot names them all. location is the
// table's URL ("" for its directory's file: URL; an s3:// or gs:// URL
// where dir is to be copied). The run's snapshot id is derived from its
// plan's SHA-256: a run the table holds already is not added again, and
// a commit interrupted before its snapshot leaves only files the
// retry writes again under the same names.
func CommitIceberg(ctx context.Context, plan *RunPlan, folds *Folds, dir, location string, now time.Time) (IcebergCommit, error) {
	files := folds.Tables[exportdir.Receipts]
	sum := sha256.Sum256([]byte(plan.SHA256))
	out := IcebergCommit{SnapshotID: int64(binary.BigEndian.Uint64(sum[:8])>>1) | 1}
	if meta, _, err := iceberg.Read(dir); err != nil {
		return out, &Error{Reason: ReasonManifest, Path: dir, Msg: err.Error()}
	} else if meta != nil {
		if location != "" && strings.TrimSuffix(location, "/") != meta.Location {
			return out, &Error{Reason: ReasonManifest, Path: filepath.Join(dir, "metadata"), Msg: fmt.Sprintf("the table's location is %s, not %s", meta.Location, location)}
		}
		for _, s := range meta.Snapshots {
			if s.ID == out.SnapshotID {
				return out, nil
			}
		}
	}
	if len(files) == 0 {
		return out, &Error{Reason: ReasonMissing, Path: plan.Path, Msg: "the folds hold no receipts table"}
	}
	db, err := openDuckDB()
	if err != nil {
		return out, err
	}
	defer db.Close()
	schema, ids, err := icebergSchema(ctx, db, files[0])
	if err != nil {
		return out, err
	}
	var added []iceberg.DataFile
	for i, src := range files {
		day, err := time.Parse("day=2006-01-02", filepath.Base(filepath.Dir(src)))
		if err != nil {
			return out, &Error{Reason: ReasonManifest, Path: src, Msg: "not in a day=YYYY-MM-DD directory of the receipts table"}
		}
		rel := fmt.Sprintf("data/%s=%s/%s-%05d.parquet", icebergDay, day.Format(time.DateOnly), plan.SHA256[:16], i)
		f, err := writeIcebergFile(ctx, db, src, filepath.Join(dir, filepath.FromSlash(rel)), day, ids)
		if err != nil {
			return out, err
		}
		f.Path = rel
		added = append(added, f)
		out.Files++
		out.Receipts += f.Records
	}
	err = iceberg.Append(dir, iceberg.Commit{
		Location: location, Schema: schema, Partition: icebergDay, SnapshotID: out.SnapshotID, Files: added, Now: now,
		Summary:    map[string]string{"verify.run": plan.ID, "verify.plan-sha256": plan.SHA256, "verify.build": plan.Build},
		Properties: map[string]string{"verify.table": exportdir.Receipts},
	})
	switch {
	case errors.Is(err, iceberg.ErrCommitted):
		return IcebergCommit{SnapshotID: out.SnapshotID}, nil
	case err != nil:
		return out, &Error{Reason: ReasonManifest, Path: dir, Msg: err.Error()}
	}
	out.Committed = true
	return out, nil
}

// icebergSchema is the table's schema for the receipts file src: its
// columns in order with field ids 1 to N, then day; list elements after.
// ids is the DuckDB FIELD_IDS value that writes them into a Parquet file.
func icebergSchema(ctx context.Context, db *sql.DB, src string) ([]iceberg.Field, string, error) {
	rows, err := db.QueryContext(ctx, "SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet("+sqltext.String(filepath.ToSlash(src))+", hive_partitioning = false))")
	if err != nil {
		return nil, "", &Error{Reason: ReasonMissing, Path: src, Msg: errText(err)}
	}
	defer rows.Close()
	var fields []iceberg.Field
	var names, types []string
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			return nil, "", err
		}
		if name == icebergDay {
			return nil, "", &Error{Reason: ReasonManifest, Path: src, Msg: "a column day in a file of the receipts table: the day is its directory's"}
		}
		names, types = append(names, name), append(types, typ)
	}
	if err := rows.Err(); err != nil {
		return nil, "", err
	}
	names, types = append(names, icebergDay), append(types, "DATE")
	next := len(names) + 1
	var ids []string
	for i, name := range names {
		id := i + 1
		typ, list := strings.CutSuffix(types[i], "[]")
		prim, ok := icebergTypes[typ]
		if !ok {
			return nil, "", &Error{Reason: ReasonManifest, Path: src, Msg: fmt.Sprintf("column %s: type %s has no Iceberg type here", name, types[i])}
		}
		f := iceberg.Field{ID: id, Name: name, Type: prim}
		idText := fmt.Sprint(id)
		if list {
			f.Type = iceberg.List{ElementID: next, Element: prim}
			idText = fmt.Sprintf("{'__duckdb_field_id': %d, 'element': %d}", id, next)
			next++
		}
		fields = append(fields, f)
		ids = append(ids, sqltext.String(name)+": "+idText)
	}
	return fields, "{" + strings.Join(ids, ", ") + "}", nil
}

// icebergTypes are the Iceberg types of the DuckDB types a receipts
// file's columns have.
var icebergTypes = map[string]string{
	"VARCHAR": "string", "BIGINT": "long", "INTEGER": "int", "BOOLEAN": "boolean", "DOUBLE": "double", "FLOAT": "float",
	"DATE": "date", "TIMESTAMP": "timestamp", "TIMESTAMP WITH TIME ZONE": "timestamptz", "BLOB": "binary",
}

// writeIcebergFile writes the receipts of src, with day as the column
// day, into the Parquet file dst with the table's field ids (a
// temporary file renamed, 0644), and returns its counts.
func writeIcebergFile(ctx context.Context, db *sql.DB, src, dst string, day time.Time, ids string) (iceberg.DataFile, error) {
	f := iceberg.DataFile{Day: day}
	if err := iceberg.MkdirReadable(filepath.Dir(dst)); err != nil {
		return f, err
	}
	tmp := filepath.Join(filepath.Dir(dst), "."+filepath.Base(dst)+".tmp")
	defer os.Remove(tmp)
	stmt := fmt.Sprintf("COPY (SELECT *, DATE %s AS %s FROM read_parquet(%s, hive_partitioning = false)) TO %s (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE %d, FIELD_IDS %s)",
		sqltext.String(day.Format(time.DateOnly)), icebergDay, sqltext.String(filepath.ToSlash(src)), sqltext.String(filepath.ToSlash(tmp)), groupRows, ids)
	if _, err := db.ExecContext(ctx, stmt); err != nil {
		return f, fmt.Errorf("%s: %w", src, err)
	}
	if err := db.QueryRowContext(ctx, "SELECT count(*) FROM read_parquet("+sqltext.String(filepath.ToSlash(tmp))+")").Scan(&f.Records); err != nil {
		return f, fmt.Errorf("%s: %w", tmp, err)
	}
	fh, err := os.Open(tmp)
	if err != nil {
		return f, err
	}
	err = fh.Sync()
	if err == nil {
		err = fh.Chmod(0o644)
	}
	fi, serr := fh.Stat()
	fh.Close()
	if err == nil {
		err = serr
	}
	if err != nil {
		return f, err
	}
	f.Bytes = fi.Size()
	return f, os.Rename(tmp, dst)
}
