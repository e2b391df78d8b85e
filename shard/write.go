package shard

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/receiptverify/verify/internal/outfile"
	"github.com/receiptverify/verify/verify"
	"github.com/receiptverify/verify/verify/stream"
)

// partRows is how many records one Parquet part holds: the rows wait in
// an in-memory table until then, so memory stays bounded (a few hundred
// MB at most) however large the shard.
const partRows = 1 << 16

// recordsTable is the columns of records-NNNNN.parquet (see the package
// documentation).
const recordsTable = `CREATE TABLE records (
	ord BIGINT NOT NULL, source VARCHAR NOT NULL, line BIGINT NOT NULL,
	format VARCHAR NOT NULL, verdict VARCHAR NOT NULL, reasons VARCHAR[] NOT NULL, axes VARCHAR NOT NULL,
	chain_key VARCHAR, link_key VARCHAR, scope_key VARCHAR, nonce_key VARCHAR,
	state BLOB NOT NULL)`

// Writer writes one map task's directory.
type Writer struct {
	dir   string
	shard int64
	db    *sql.DB
	conn  *sql.Conn
	app   *duckdb.Appender
	rows  int
	parts []string
}

// Create starts writing the records of shard number shard into dir, which
// must be empty or not exist: a directory holding another run's parts
// would be read as part of this one.
func Create(dir string, shard int64) (*Writer, error) {
	if shard < 0 || shard > MaxShard {
		return nil, fmt.Errorf("shard %d: must be 0 to %d", shard, MaxShard)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(dir); err != nil {
		return nil, err
	} else if len(ents) > 0 {
		return nil, fmt.Errorf("%s: not empty: a map task writes into a directory of its own", dir)
	}
	db, err := openDuckDB()
	if err != nil {
		return nil, err
	}
	w := &Writer{dir: dir, shard: shard, db: db}
	ctx := context.Background()
	if w.conn, err = db.Conn(ctx); err == nil {
		_, err = w.conn.ExecContext(ctx, recordsTable)
	}
	if err == nil {
		err = w.openAppender()
	}
	if err != nil {
		w.abort()
		return nil, err
	}
	return w, nil
}

func (w *Writer) openAppender() error {
	return w.conn.Raw(func(dc any) error {
		c, ok := dc.(driver.Conn)
		if !ok {
			return errors.New("not a DuckDB connection")
		}
		var err error
		w.app, err = duckdb.NewAppenderFromConn(c, "", "records")
		return err
	})
}

// Add writes one record; records come in the order stream.Map gives them.
func (w *Writer) Add(m *stream.Mapped) error {
	if m.Seq >= 1<<SeqBits {
		return fmt.Errorf("more than 2^%d records in one shard", SeqBits)
	}
	r := m.Result
	axes, err := r.Axes.MarshalJSON()
	if err != nil {
		return err
	}
	reasons := r.Reasons
	if reasons == nil {
		reasons = []verify.Reason{}
	}
	texts := make([]string, len(reasons))
	for i, x := range reasons {
		texts[i] = string(x)
	}
	err = w.app.AppendRow(w.shard<<SeqBits|int64(m.Seq), r.Source, int64(r.Line), r.Format, string(r.Verdict), texts, string(axes),
		orNull(m.Keys.Chain), orNull(m.Keys.Link), orNull(m.Keys.Scope), orNull(m.Keys.Nonce), m.State)
	if err != nil {
		return err
	}
	if w.rows++; w.rows >= partRows {
		return w.flush()
	}
	return nil
}

func orNull(s string) driver.Value {
	if s == "" {
		return nil
	}
	return s
}

// flush writes the rows held as the next part.
func (w *Writer) flush() error {
	if err := w.app.Close(); err != nil {
		return err
	}
	w.app = nil
	name := fmt.Sprintf("records-%05d.parquet", len(w.parts))
	ctx := context.Background()
	stmt := fmt.Sprintf("COPY records TO %s (FORMAT parquet, COMPRESSION zstd)", sqlString(filepath.Join(w.dir, name)))
	if _, err := w.conn.ExecContext(ctx, stmt); err != nil {
		return err
	}
	if _, err := w.conn.ExecContext(ctx, "DELETE FROM records"); err != nil {
		return err
	}
	w.parts = append(w.parts, name)
	w.rows = 0
	return w.openAppender()
}

// Close writes the last part and the manifest, which marks the directory
// finished: Finalize refuses one without it.
func (w *Writer) Close(sum stream.MapSummary) error {
	defer w.abort()
	if w.rows > 0 || len(w.parts) == 0 {
		if err := w.flush(); err != nil {
			return err
		}
	}
	m := manifest{Version: manifestVersion, Build: build(), Shard: w.shard, Parts: slices.Clone(w.parts), Summary: sum}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteFile(filepath.Join(w.dir, Manifest), append(b, '\n'))
}

// abort releases the writer without finishing the directory.
func (w *Writer) abort() {
	if w.app != nil {
		w.app.Close()
		w.app = nil
	}
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
	if w.db != nil {
		w.db.Close()
		w.db = nil
	}
}

// Abort releases the writer after a failed run; the directory is left
// without a manifest, so no finalize takes it for a finished shard.
func (w *Writer) Abort() { w.abort() }
