package analytics

import (
	"database/sql"
	"strconv"
	"strings"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// A load of many small files (a directory of one file per agent run, say)
// spent most of its time on what each file costs the database whatever its
// size: a transaction, a look-up of lines stored before, an INSERT, the
// look-up of the lines RawFlagged keeps, a commit. A fileBatch gathers
// the small files that need nothing of their own (below) and stores them
// in one transaction with one statement of each kind, giving every row
// what one transaction per file would have given it. A file is still all
// or nothing: the batch is committed whole or not at all, and a file is
// reported (OnFile) only once committed. An interruption loses the
// batch's files, which the next load verifies again.
type fileBatch struct {
	files  []*fileLoad
	onFile []func(FileSummary)
	bytes  int64 // of the files' rows
}

// Limits of a batch: a file with more rows has its own transaction; a
// batch is stored once it holds batchFiles files or batchBytes of rows
// (held in memory until then).
const (
	batchFileBytes = 1 << 20
	batchFiles     = 1024
	batchBytes     = 64 << 20
)

// batchable reports whether the file, read to its end, can be stored with
// others: its receipts' rows are all held in memory (fileLoad.mem), it has
// no rejects, no chunk of it is inserted yet, it is a whole new content
// (it extends none and its last line is complete), no stored receipt
// names one of its receipts (relink), and no test hook waits on its
// transaction.
func (f *fileLoad) batchable() bool {
	return f.batch != nil && f.tx == nil && f.rows == nil && len(f.mem) > 0 && f.rejects == nil &&
		!f.sum.Incomplete && f.plan.base == "" && f.plan.skip == 0 && f.plan.firstLine == 1 &&
		!f.relinks && f.hook == nil && f.rowsSHA == f.sum.SHA256 &&
		len(f.sum.Holds) == 1 && f.sum.Holds[0] == f.sum.SHA256
}

// add takes a batchable file, storing the batch once full.
func (b *fileBatch) add(f *fileLoad, onFile func(FileSummary)) error {
	b.files = append(b.files, f)
	b.onFile = append(b.onFile, onFile)
	b.bytes += int64(len(f.mem))
	if len(b.files) >= batchFiles || b.bytes >= batchBytes {
		return b.flush()
	}
	return nil
}

// discard drops the files not stored (the load stops).
func (b *fileBatch) discard() {
	if b == nil {
		return
	}
	for _, f := range b.files {
		f.abort()
	}
	b.files, b.onFile, b.bytes = nil, nil, 0
}

// flush stores the files gathered, if any, and reports them. When a line
// of one of them is stored already, or is in two of them (a re-delivery,
// which the file's own transaction counts apart), each is stored in its
// own transaction instead, as it would have been.
func (b *fileBatch) flush() error {
	if b == nil || len(b.files) == 0 {
		return nil
	}
	files, onFile := b.files, b.onFile
	b.files, b.onFile, b.bytes = nil, nil, 0
	f0 := files[0]
	if len(files) > 1 {
		stored, err := b.store(files)
		if err != nil {
			for _, f := range files {
				f.abort()
			}
			return dbErr(f0.ctx, "load", f0.in.Name, err)
		}
		if stored {
			for i, f := range files {
				f.abort() // drops its rows held in memory
				if onFile[i] != nil {
					onFile[i](*f.sum)
				}
			}
			return nil
		}
	}
	for i, f := range files {
		if err := f.store(f.plan.id.bytes, f.plan.id.unterminated, onFile[i]); err != nil {
			for _, g := range files[i+1:] {
				g.abort()
			}
			return err
		}
	}
	return nil
}

// store stores files in one transaction and commits, or stores nothing
// and returns false when one of their lines is a re-delivery.
func (b *fileBatch) store(files []*fileLoad) (bool, error) {
	f0 := files[0]
	ctx := f0.ctx
	tx, err := f0.conn.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if tx != nil {
			tx.Rollback()
		}
	}()
	// The rows of all the files, in one spool, each with its file's
	// order in the batch (b_ord), and the files: order, file_sha256,
	// source.
	sp, err := newSpool(f0.tempDir)
	if err != nil {
		return false, &dberr.IOError{Op: "spool", Path: f0.in.Name, Err: err}
	}
	defer sp.remove()
	var vals strings.Builder
	var row []byte
	for i, f := range files {
		ord := strconv.Itoa(i + 1)
		if i > 0 {
			vals.WriteByte(',')
		}
		vals.WriteString("(" + ord + ", " + sqltext.String(f.sum.SHA256) + ", " + sqltext.String(f.sum.Path) + ")")
		err := eachRow(f.mem, func(r []byte) error {
			// {"b_ord":N, and the row's fields
			row = append(append(append(append(row[:0], `{"b_ord":`...), ord...), ','), r[1:]...)
			return sp.write(row)
		})
		if err != nil {
			return false, err
		}
	}
	if err := sp.close(); err != nil {
		return false, &dberr.IOError{Op: "spool", Path: sp.path, Err: err}
	}
	batchRows := "(SELECT s.*, m.b_sha, m.b_source FROM " + sp.read("{b_ord: 'BIGINT', "+strings.TrimPrefix(receiptColumns, "{")) +
		" s JOIN (VALUES " + vals.String() + ") m(m_ord, b_sha, b_source) ON s.b_ord = m.m_ord)"
	// Read once, into a temporary table of the transaction.
	if _, err := tx.ExecContext(ctx, "CREATE OR REPLACE TEMP TABLE load_batch AS "+batchRows); err != nil {
		return false, err
	}
	var redelivered bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM load_batch s
			WHERE EXISTS (SELECT 1 FROM receipts r WHERE r.line_sha256 = s.line_sha256))
		OR EXISTS (SELECT line_sha256 FROM load_batch GROUP BY line_sha256 HAVING count(DISTINCT b_ord) > 1)`).Scan(&redelivered); err != nil {
		return false, err
	}
	if redelivered {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, batchReceiptInsert+"load_batch ORDER BY b_ord, line", f0.loadedAt.Format("2006-01-02"), f0.trust); err != nil {
		return false, err
	}
	if err := b.fillFlagged(tx, files, vals.String()); err != nil {
		return false, err
	}
	for start := 0; start < len(files); start += filesPerInsert {
		part := files[start:min(start+filesPerInsert, len(files))]
		var q strings.Builder
		args := make([]any, 0, filesRowValues*len(part))
		q.WriteString(filesInsertHead)
		for i, f := range part {
			if i > 0 {
				q.WriteByte(',')
			}
			q.WriteString(filesRow(len(args)))
			args = append(args, f.filesRowArgs(f.plan.id.bytes, f.plan.id.unterminated)...)
		}
		if _, err := tx.ExecContext(ctx, q.String(), args...); err != nil {
			return false, err
		}
	}
	if _, err := tx.ExecContext(ctx, "DROP TABLE load_batch"); err != nil {
		return false, err
	}
	err = tx.Commit()
	tx = nil
	return err == nil, err
}

// fillFlagged stores the lines RawFlagged keeps of the batch's PASS
// receipts, as each file's transaction would have (flaggedWithoutRaw):
// a value shared with a receipt stored before the batch or of a file
// before it in the batch, or of its own file, keeps the line; one shared
// only with a later file of the batch does not, as that file was not
// stored yet when its own transaction would have looked. vals are the
// batch's (order, file_sha256, source) rows.
func (b *fileBatch) fillFlagged(tx *sql.Tx, files []*fileLoad, vals string) error {
	f0 := files[0]
	rows, err := tx.QueryContext(f0.ctx, strings.ReplaceAll(flaggedInBatch, "$VALUES", vals))
	if err != nil {
		return err
	}
	locs := map[int][]lineLoc{}
	for rows.Next() {
		var ord int
		var l lineLoc
		if err := rows.Scan(&ord, &l.line, &l.offset, &l.length, &l.sha256); err != nil {
			rows.Close()
			return err
		}
		locs[ord-1] = append(locs[ord-1], l)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(locs) == 0 {
		return nil
	}
	var all []lineLoc
	for _, l := range locs {
		all = append(all, l...)
	}
	store, err := lineStorer(f0.ctx, tx, all)
	if err != nil {
		return err
	}
	p := &linePieces{dir: f0.tempDir, store: func(from string, _, _ int64) error {
		return store(f0.ctx, tx, from, `receipts.file_sha256 = s.sha`)
	}}
	defer p.remove()
	for i, f := range files {
		if len(locs[i]) == 0 {
			continue
		}
		if err := f.spoolLines(p, locs[i], f.sum.SHA256); err != nil {
			return err
		}
	}
	return p.flush()
}

// flaggedInBatch is flaggedWithoutRaw for the files of a batch ($VALUES:
// order, file_sha256, source), each judged as its own transaction
// would have judged it: against the receipts stored before the batch
// (order 0) and those of the files up to its own. A receipt of file k
// shares a value when at least two receipts of order k or less have it:
// when k is at least the second smallest order among them.
const flaggedInBatch = `WITH b(b_ord, b_sha, b_source) AS (VALUES $VALUES),
r AS (
    SELECT receipts.*, COALESCE(b.b_ord, 0) AS ord FROM receipts LEFT JOIN b ON receipts.file_sha256 = b.b_sha
),
a AS (SELECT hash(action_id) AS h, list_sort(list(ord))[2] AS m2 FROM r WHERE action_id <> '' GROUP BY 1 HAVING count(*) > 1),
n AS (SELECT hash(COALESCE(issuer_id, ''), nonce) AS h, list_sort(list(ord))[2] AS m2 FROM r WHERE nonce <> '' GROUP BY 1 HAVING count(*) > 1),
g AS (SELECT hash(signature_sha256) AS h, list_sort(list(ord))[2] AS m2 FROM r WHERE signature_sha256 <> '' GROUP BY 1 HAVING count(*) > 1),
c AS (SELECT hash(call_signature) AS h, list_sort(list(ord))[2] AS m2 FROM r WHERE call_signature <> '' GROUP BY 1 HAVING count(*) > 1),
mine AS (
    SELECT ord, line, byte_offset, byte_length, line_sha256, verdict, action_id, COALESCE(issuer_id, '') AS scope, nonce,
           signature_sha256, call_signature
    FROM r WHERE ord > 0 AND raw IS NULL AND byte_offset IS NOT NULL
)
SELECT ord, line, byte_offset, byte_length, line_sha256 FROM mine
WHERE verdict <> 'PASS'
   OR EXISTS (SELECT 1 FROM a WHERE a.h = hash(mine.action_id) AND mine.ord >= a.m2)
   OR EXISTS (SELECT 1 FROM n WHERE n.h = hash(mine.scope, mine.nonce) AND mine.ord >= n.m2)
   OR EXISTS (SELECT 1 FROM g WHERE g.h = hash(mine.signature_sha256) AND mine.ord >= g.m2)
   OR EXISTS (SELECT 1 FROM c WHERE c.h = hash(mine.call_signature) AND mine.ord >= c.m2)
ORDER BY ord, line`

// batchReceiptInsert is receiptInsert reading a batch's rows, each with
// its file's b_sha and b_source; $1 is the load's day, $2 its trust.
var batchReceiptInsert = strings.NewReplacer("SELECT $1, $2,", "SELECT b_sha, b_source,", "$3", "$1", "$4", "$2").Replace(receiptInsert)

// filesInsert adds one files row; filesInsertHead, followed by rows of
// filesRow, adds several, filesPerInsert at most.
const (
	filesInsertHead = `INSERT INTO files (file_sha256, path, size_bytes, lines, accepted, rejected, loaded_at,
	content_bytes, first_line, base_sha256, head_sha256, unterminated, trust_sha256, redelivered, redelivered_days, family)
VALUES `
	filesPerInsert = 128
)

var filesInsert = filesInsertHead + filesRow(0)

// filesRowValues are the values of a files row (fileLoad.filesRowArgs).
const filesRowValues = 16

// filesRow is the VALUES row of a files row whose values are the
// parameters after the first n: base_sha256 and redelivered_days are
// NULL when empty.
func filesRow(n int) string {
	var b strings.Builder
	b.WriteByte('(')
	for j := 1; j <= filesRowValues; j++ {
		if j > 1 {
			b.WriteString(", ")
		}
		p := "$" + strconv.Itoa(n+j)
		if j == 10 || j == 15 {
			p = "NULLIF(" + p + ", '')"
		}
		b.WriteString(p)
	}
	b.WriteByte(')')
	return b.String()
}
