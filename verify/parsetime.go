package verify

import (
	"strconv"
	"time"
)

// parseTime reads the timestamps receipts carry, in the grammar the Asqav
// reference verifier accepts (testdata/asqav/axis-parity-cases.json pins
// it):
//
//	YYYY-MM-DD [ ("T" | " ") hh:mm [ ":" ss [ "." fraction ] ] [ offset ] ]
//	offset = "Z" | ("+" | "-") hh [ [ ":" ] mm ]
//
// A date alone is midnight UTC; a time without an offset is UTC (Python's
// isoformat for a naive UTC time, which the Asqav server writes). The
// fraction has at least one digit; digits past nanoseconds are dropped.
// Every field is range-checked: no hour 24, no leap second 60, no offset
// beyond ±23:59. Lowercase "t" and "z", the basic form (20200101T000000Z),
// epoch numbers and English dates are refused.
func parseTime(s string) (time.Time, bool) {
	p := timeParser{s: s}
	year, ok1 := p.digits(4)
	ok2 := p.byte('-')
	month, ok3 := p.digits(2)
	ok4 := p.byte('-')
	day, ok5 := p.digits(2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) || year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return time.Time{}, false
	}
	if p.done() {
		return time.Date(year, time.Month(month), day, 0, 0, 0, 0, time.UTC), true
	}
	if !p.byte('T') && !p.byte(' ') {
		return time.Time{}, false
	}
	hour, ok1 := p.digits(2)
	ok2 = p.byte(':')
	minute, ok3 := p.digits(2)
	if !(ok1 && ok2 && ok3) || hour > 23 || minute > 59 {
		return time.Time{}, false
	}
	var sec, nsec int
	if p.byte(':') {
		var ok bool
		if sec, ok = p.digits(2); !ok || sec > 59 {
			return time.Time{}, false
		}
		if p.byte('.') {
			start := p.i
			for p.i < len(p.s) && isDigit(p.s[p.i]) {
				p.i++
			}
			frac := p.s[start:p.i]
			if len(frac) == 0 {
				return time.Time{}, false
			}
			frac = frac[:min(len(frac), 9)] // beyond nanoseconds: truncated
			n, _ := strconv.Atoi(frac)
			for i := len(frac); i < 9; i++ {
				n *= 10
			}
			nsec = n
		}
	}
	offset := 0
	switch {
	case p.done():
	case p.byte('Z'):
	case p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-'):
		sign := 1
		if p.s[p.i] == '-' {
			sign = -1
		}
		p.i++
		oh, ok := p.digits(2)
		if !ok || oh > 23 {
			return time.Time{}, false
		}
		om := 0
		if !p.done() {
			p.byte(':')
			if om, ok = p.digits(2); !ok || om > 59 {
				return time.Time{}, false
			}
		}
		offset = sign * (oh*3600 + om*60)
	default:
		return time.Time{}, false
	}
	if !p.done() {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC)
	return t.Add(-time.Duration(offset) * time.Second), true
}

// timeParser walks a timestamp left to right.
type timeParser struct {
	s string
	i int
}

func (p *timeParser) done() bool { return p.i == len(p.s) }

// byte consumes c if it is next.
func (p *timeParser) byte(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// digits consumes exactly n ASCII digits.
func (p *timeParser) digits(n int) (int, bool) {
	if len(p.s)-p.i < n {
		return 0, false
	}
	v := 0
	for k := 0; k < n; k++ {
		c := p.s[p.i+k]
		if !isDigit(c) {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	p.i += n
	return v, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
