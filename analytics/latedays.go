package analytics

import (
	"context"
	"time"

	"github.com/receiptverify/verify/internal/analytics/dberr"
	"github.com/receiptverify/verify/internal/helpers/sqltext"
)

// LateDay is a day that a load added receipts to and that had already
// ended when receipts of it were loaded before: a nightly job has
// reported it, and that report is stale (a late delivery).
type LateDay struct {
	Day   string // YYYY-MM-DD
	Added int64  // receipts the load added to it
}

// LateDays are the days, in order, that the files a load added hold
// receipts of and that held receipts of other files loaded after the day
// ended.
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
	rows, err := db.sql.QueryContext(ctx, `SELECT day, count(*) FROM receipts
		WHERE file_sha256 IN (`+in+`) AND day IS NOT NULL
		  AND day IN (SELECT r.day FROM receipts r JOIN files f ON f.file_sha256 = r.file_sha256
		      WHERE r.file_sha256 NOT IN (`+in+`) AND r.day IS NOT NULL AND f.loaded_at >= r.day + INTERVAL 1 DAY)
		GROUP BY day ORDER BY day`)
	if err != nil {
		return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
	}
	defer rows.Close()
	var out []LateDay
	for rows.Next() {
		var d time.Time
		var n int64
		if err := rows.Scan(&d, &n); err != nil {
			return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
		}
		out = append(out, LateDay{Day: d.Format(time.DateOnly), Added: n})
	}
	if err := rows.Err(); err != nil {
		return nil, &dberr.IOError{Op: "read late days", Path: db.path, Err: err}
	}
	return out, nil
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
