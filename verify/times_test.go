package verify

import (
	"testing"
	"time"
)

// TestParseTime pins the grammar beyond the parity table: the instant each
// accepted form stands for, and the edges the table does not name.
func TestParseTime(t *testing.T) {
	utc := func(y, mo, d, h, mi, s, ns int) time.Time {
		return time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	}
	ok := map[string]time.Time{
		"2020-01-01":                          utc(2020, 1, 1, 0, 0, 0, 0),
		"2020-01-01T00:00":                    utc(2020, 1, 1, 0, 0, 0, 0),
		"2020-01-01 12:34:56":                 utc(2020, 1, 1, 12, 34, 56, 0),
		"2020-01-01T00:00:00.5Z":              utc(2020, 1, 1, 0, 0, 0, 500000000),
		"2020-01-01T00:00:00.1234567891234Z":  utc(2020, 1, 1, 0, 0, 0, 123456789),
		"2020-01-01T02:00:00+02:00":           utc(2020, 1, 1, 0, 0, 0, 0),
		"2020-01-01T02:30:00+0230":            utc(2020, 1, 1, 0, 0, 0, 0),
		"2019-12-31T19:00:00-05":              utc(2020, 1, 1, 0, 0, 0, 0),
		"2020-01-01T00:00:00-23:59":           utc(2020, 1, 1, 23, 59, 0, 0),
		"2020-02-29T00:00:00Z":                utc(2020, 2, 29, 0, 0, 0, 0),
		"2026-06-20T22:23:57.045786Z":         utc(2026, 6, 20, 22, 23, 57, 45786000),
		"2026-06-19T00:00:00.000000+00:00":    utc(2026, 6, 19, 0, 0, 0, 0),
		"9999-12-31T23:59:59Z":                utc(9999, 12, 31, 23, 59, 59, 0),
		"2020-01-01T00:00:00.999999999+00:00": utc(2020, 1, 1, 0, 0, 0, 999999999),
	}
	for s, want := range ok {
		got, good := parseTime(s)
		if !good || !got.Equal(want) {
			t.Errorf("parseTime(%q) = %v, %v; want %v", s, got, good, want)
		}
	}
	for _, s := range []string{
		"", "2020", "2020-01", "2020-1-01", "2021-02-29", "2020-04-31", "0000-01-01",
		"2020-01-01T", "2020-01-01T00", "2020-01-01t00:00:00Z", "2020-01-01_00:00:00",
		"2020-01-01T00:00:00.", "2020-01-01T00:00:00.Z", "2020-01-01T00:00:00+", "2020-01-01T00:00:00+2",
		"2020-01-01T00:00:00+02:", "2020-01-01T00:00:00+02:0", "2020-01-01T00:00:00+24:00",
		"2020-01-01T00:00:00+02:00:00", "2020-01-01T00:00:00Z ", " 2020-01-01", "2020-01-01Z",
		"2020-01-01T00:00:00ZZ", "２０２０-01-01",
	} {
		if got, good := parseTime(s); good {
			t.Errorf("parseTime(%q) = %v, want refused", s, got)
		}
	}
}

// TestIssuedTime: the instant a caller files a receipt under is the one
// the skew check judged, in every spelling parseTime reads.
func TestIssuedTime(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"2026-11-01T00:10:03+0000":  "2026-11-01T00:10:03Z",
		"2026-11-01 00:10:03":       "2026-11-01T00:10:03Z",
		"2026-11-02T01:10:03+01:00": "2026-11-02T00:10:03Z",
		"2026-11-01":                "2026-11-01T00:00:00Z",
		"":                          "",
		"yesterday":                 "",
	} {
		r := &Result{Fields: Fields{IssuedAt: in}}
		got := ""
		if ts, ok := r.IssuedTime(); ok {
			got = ts.Format(time.RFC3339Nano)
		}
		if got != want {
			t.Errorf("IssuedTime(%q) = %q, want %q", in, got, want)
		}
	}
}
