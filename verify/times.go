package verify

import (
	"strings"
	"time"
)

// parseTime reads the timestamps receipts carry: RFC 3339 with any
// fraction, and Python's isoformat without an offset, which the Asqav
// server writes for UTC.
func parseTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, false
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), true
	}
	if !strings.ContainsAny(s[min(len(s), 10):], "Z+-") {
		if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// checkTimes fills the expiry and skew axes from Fields.IssuedAt and
// Fields.ExpiresAt against the judging instant.
func (c *check) checkTimes() {
	f := &c.res.Fields
	at := c.v.at
	issued, okIssued := parseTime(f.IssuedAt)
	if f.IssuedAt != "" && !okIssued {
		c.fail(AxisStructure, ReasonBadField, "issued_at is not an RFC 3339 time: "+f.IssuedAt)
	}
	if !c.has(AxisExpiry) {
		switch exp, ok := parseTime(f.ExpiresAt); {
		case f.ExpiresAt == "":
			c.notRun(AxisExpiry, "no expiry")
		case !ok:
			c.fail(AxisStructure, ReasonBadField, "expires_at is not an RFC 3339 time: "+f.ExpiresAt)
		case at.IsZero():
			c.notRun(AxisExpiry, "no judging time")
		case !at.Before(exp):
			c.fail(AxisExpiry, ReasonExpired, "expired at "+exp.Format(time.RFC3339Nano))
		default:
			c.pass(AxisExpiry, "expires "+exp.Format(time.RFC3339Nano))
		}
	}
	if !c.has(AxisSkew) {
		switch {
		case !okIssued:
			c.notRun(AxisSkew, "no issue time")
		case at.IsZero():
			c.notRun(AxisSkew, "no judging time")
		case issued.After(at.Add(c.v.maxSkew)):
			c.fail(AxisSkew, ReasonClockSkew, "issued "+issued.Format(time.RFC3339Nano)+", after the judging time "+at.Format(time.RFC3339))
		default:
			c.pass(AxisSkew, "")
		}
	}
}

// timeOf parses s, or returns the zero time.
func timeOf(s string) time.Time {
	t, _ := parseTime(s)
	return t
}
