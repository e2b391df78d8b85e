package verify

import (
	"strconv"
	"time"
)

// checkTimes fills the expiry and skew axes from Fields.IssuedAt and
// Fields.ExpiresAt against the judging instant, unless the format's check
// already judged them (an Asqav payload whose time member is present but
// not a string, say). An unreadable time fails its own axis, as in the
// reference verifier, and not the structure axis: an unreadable issued_at
// fails skew, an unreadable expires_at fails expiry (which is advisory, so
// it never decides the verdict on its own).
func (c *check) checkTimes() {
	f := &c.res.Fields
	at := c.v.at
	if !c.has(AxisExpiry) {
		switch exp, ok := parseTime(f.ExpiresAt); {
		case f.ExpiresAt == "":
			c.pass(AxisExpiry, "receipt declares no expiry")
		case !ok:
			c.fail(AxisExpiry, ReasonBadField, "unreadable expires_at "+strconv.Quote(f.ExpiresAt))
		case at.IsZero():
			c.notRun(AxisExpiry, "no judging time")
		case !at.Before(exp):
			c.fail(AxisExpiry, ReasonExpired, "expires_at "+f.ExpiresAt+" lapsed")
		default:
			c.pass(AxisExpiry, "expires_at "+f.ExpiresAt+" is in the future")
		}
	}
	if !c.has(AxisSkew) {
		switch issued, ok := parseTime(f.IssuedAt); {
		case f.IssuedAt == "":
			c.notRun(AxisSkew, "no issue time")
		case !ok:
			c.fail(AxisSkew, ReasonBadField, "unparseable issued_at "+strconv.Quote(f.IssuedAt))
		case at.IsZero():
			c.notRun(AxisSkew, "no judging time")
		case issued.After(at.Add(c.v.maxSkew)):
			c.fail(AxisSkew, ReasonClockSkew, "issued "+issued.Format(time.RFC3339Nano)+", after the judging time "+at.Format(time.RFC3339)+" (> "+c.v.maxSkew.String()+")")
		default:
			c.pass(AxisSkew, "within bound of "+c.v.maxSkew.String())
		}
	}
}

// timeOf parses s, or returns the zero time.
func timeOf(s string) time.Time {
	t, _ := parseTime(s)
	return t
}
