package analytics

import (
	"context"
	"errors"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// LateDay is a day that a load added receipts to after a report of it
// was written (report_runs): that report is stale (a late delivery).
type LateDay struct {
	Day        string    // YYYY-MM-DD
	Added      int64     // receipts the load added to it
	NotPass    int64     // of them FAIL or INCOMPLETE
	ReportedAt time.Time // the day's last report generation before the load
}

// LateDays records, and returns in order, the days that the files a load
// added hold receipts of and that a report was written of before
// (late_deliveries). Whether a day was reported is what the database
// recorded of its reports, not when its receipts were loaded: a day
// reported from a load made before it ended is late all the same.
func (db *DB) LateDays(ctx context.Context, sum LoadSummary) ([]LateDay, error) {
	var added []string
	for _, f := range sum.Files {
		if f.Err == nil && !f.AlreadyLoaded && f.Accepted > 0 && len(f.Holds) > 0 {
			added = append(added, f.Holds[0])
		}
	}
	if len(added) == 0 {
		return nil, nil
	}
	in := sqltext.Strings(added)
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO late_deliveries
		SELECT r.day, r.file_sha256, min(r.source), count(*), count(*) FILTER (WHERE r.verdict <> 'PASS'), min(f.loaded_at), min(p.reported_at)
		FROM receipts r JOIN files f ON f.file_sha256 = r.file_sha256
		JOIN (SELECT day, max(generated_at) AS reported_at FROM report_runs GROUP BY day) p ON p.day = r.day
		WHERE r.file_sha256 IN (`+in+`)
		GROUP BY r.day, r.file_sha256
		ON CONFLICT DO NOTHING`); err != nil {
		return nil, &dberr.IOError{Op: "record late deliveries", Path: db.path, Err: err}
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT day, sum(receipts), sum(not_pass), max(reported_at) FROM late_deliveries
		WHERE file_sha256 IN (`+in+`) GROUP BY day ORDER BY day`)
	if err != nil {
		return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
	}
	defer rows.Close()
	var out []LateDay
	for rows.Next() {
		var d time.Time
		var l LateDay
		if err := rows.Scan(&d, &l.Added, &l.NotPass, &l.ReportedAt); err != nil {
			return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
		}
		l.Day = d.Format(time.DateOnly)
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
	}
	return out, nil
}

// lateDelivery is one file's receipts of a day loaded after a report of
// the day was written (late_deliveries), as a report lists them.
type lateDelivery struct {
	Source     string    `json:"source"`
	SHA256     string    `json:"sha256"`
	Receipts   int64     `json:"receipts"`
	NotPass    int64     `json:"not_pass"`
	LoadedAt   time.Time `json:"loaded_at"`
	ReportedAt time.Time `json:"reported_at"` // the report generation they came after
}

// lateDeliveries are the late deliveries of day, by load time and source.
// A database made before late_deliveries existed has none.
func lateDeliveries(ctx context.Context, q querier, day string) ([]lateDelivery, error) {
	out := []lateDelivery{}
	rows, err := q.QueryContext(ctx, `SELECT source, file_sha256, receipts, not_pass, loaded_at, reported_at FROM late_deliveries
		WHERE day = CAST(? AS DATE) ORDER BY loaded_at, source, file_sha256`, day)
	if err != nil {
		if ok, terr := hasTable(ctx, q, "late_deliveries"); terr == nil && !ok {
			return out, nil
		}
		return nil, &dberr.IOError{Op: "read late deliveries", Err: err}
	}
	defer rows.Close()
	for rows.Next() {
		var l lateDelivery
		if err := rows.Scan(&l.Source, &l.SHA256, &l.Receipts, &l.NotPass, &l.LoadedAt, &l.ReportedAt); err != nil {
			return nil, &dberr.IOError{Op: "read late deliveries", Err: err}
		}
		l.LoadedAt, l.ReportedAt = l.LoadedAt.UTC(), l.ReportedAt.UTC()
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "read late deliveries", Err: err}
	}
	return out, nil
}

// hasTable says whether the database has the named table.
func hasTable(ctx context.Context, q querier, name string) (bool, error) {
	rows, err := q.QueryContext(ctx, `SELECT count(*) FROM information_schema.tables WHERE table_name = ?`, name)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	var n int
	if rows.Next() {
		err = rows.Scan(&n)
	}
	if err == nil {
		err = rows.Err()
	}
	return n > 0, err
}

// RecordReport records a report of opts.Day written to opts.Dir (by
// DB.Report on the database opened read-only) in report_runs, as
// DB.Report does on a database opened for writing.
func (db *DB) RecordReport(ctx context.Context, opts ReportOptions) error {
	if db.readOnly {
		return &dberr.WriteError{Path: db.path, Err: errors.New("opened read-only")}
	}
	return db.recordReport(ctx, opts)
}

// recordReport adds a generation of a day's report to report_runs.
func (db *DB) recordReport(ctx context.Context, opts ReportOptions) error {
	at := opts.Now
	if at.IsZero() {
		at = time.Now()
	}
	if _, err := db.sql.ExecContext(ctx, `INSERT INTO report_runs VALUES (CAST(? AS DATE), ?, ?, ?)`,
		opts.Day, at.UTC(), opts.Run, opts.Dir); err != nil {
		return &dberr.WriteError{Path: db.path, Err: err}
	}
	if b := opts.Baseline; b != nil && b.Data != nil {
		if _, err := db.sql.ExecContext(ctx, `INSERT INTO trust_contents (sha256, content) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
			b.SHA256, b.Data); err != nil {
			return &dberr.WriteError{Path: db.path, Err: err}
		}
	}
	return nil
}

// RedeliveredDays are the UTC days (YYYY-MM-DD) of the stored receipts
// that the inputs of a load re-delivered (files.redelivered_days), this
// load's or, for an input already loaded, the load's that stored it: the
// days an audit of those inputs reports.
func (db *DB) RedeliveredDays(ctx context.Context, sum LoadSummary) ([]string, error) {
	var held []string
	for _, f := range sum.Files {
		if f.Err == nil {
			held = append(held, f.Holds...)
		}
	}
	if len(held) == 0 {
		return nil, nil
	}
	rows, err := db.sql.QueryContext(ctx, `SELECT DISTINCT unnest(string_split(redelivered_days, ',')) AS day FROM files
		WHERE file_sha256 IN (`+sqltext.Strings(held)+`) AND redelivered_days IS NOT NULL ORDER BY day`)
	if err != nil {
		return nil, &dberr.IOError{Op: "read re-delivered days", Path: db.path, Err: err}
	}
	defer rows.Close()
	var days []string
	for rows.Next() {
		var d string
		if err := rows.Scan(&d); err != nil {
			return nil, &dberr.IOError{Op: "read re-delivered days", Path: db.path, Err: err}
		}
		days = append(days, d)
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "read re-delivered days", Path: db.path, Err: err}
	}
	return days, nil
}
