package verify

import (
	"strings"

	"github.com/receiptverify/verify/verify/canon"
)

// A receipt is read with its lone surrogates ("\ud83d", a string cut inside
// an emoji) kept, in WTF-8 form, so that each format's dialect can sign or
// refuse them as its producer does. A Result's fields are text for people
// and databases: there each lone surrogate becomes one U+FFFD, as Go's and
// most JSON decoders read it, rather than three bytes no UTF-8 reader takes.

// resultText replaces the lone surrogates of the Result's fields.
func resultText(r *Result) {
	for _, s := range r.Fields.texts() {
		*s = replaceLoneSurrogates(*s)
	}
	for i := range r.Fields.ToolServers {
		r.Fields.ToolServers[i] = replaceLoneSurrogates(r.Fields.ToolServers[i])
	}
}

// replaceLoneSurrogates turns each WTF-8 surrogate (ED A0..BF xx) of s into
// U+FFFD. s is returned as it is when it holds none.
func replaceLoneSurrogates(s string) string {
	i := wtf8Surrogate(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i >= 0 {
		b.WriteString(s[:i])
		b.WriteString("\uFFFD")
		s = s[i+3:]
		i = wtf8Surrogate(s, 0)
	}
	b.WriteString(s)
	return b.String()
}

// wtf8Surrogate returns the index of the first WTF-8 surrogate in s at or
// after from, or -1.
func wtf8Surrogate(s string, from int) int {
	for i := from; i+2 < len(s); i++ {
		j := strings.IndexByte(s[i:], 0xED)
		if j < 0 {
			return -1
		}
		i += j
		if i+2 < len(s) && s[i+1] >= 0xA0 && s[i+1] <= 0xBF {
			return i
		}
	}
	return -1
}

// hasLoneSurrogate reports whether a string or member name in v holds a
// lone surrogate.
func hasLoneSurrogate(v *canon.Value) bool {
	switch v.Kind {
	case canon.String:
		return wtf8Surrogate(v.Text, 0) >= 0
	case canon.Array:
		for i := range v.Items {
			if hasLoneSurrogate(&v.Items[i]) {
				return true
			}
		}
	case canon.Object:
		for i := range v.Members {
			if wtf8Surrogate(v.Members[i].Name, 0) >= 0 || hasLoneSurrogate(&v.Members[i].Value) {
				return true
			}
		}
	}
	return false
}

// goDecoded returns v as Go's encoding/json decodes it: each lone surrogate
// becomes U+FFFD. v itself is returned when it holds none.
func goDecoded(v *canon.Value) *canon.Value {
	if !hasLoneSurrogate(v) {
		return v
	}
	out := replaceValue(*v)
	return &out
}

func replaceValue(v canon.Value) canon.Value {
	switch v.Kind {
	case canon.String:
		v.Text = replaceLoneSurrogates(v.Text)
	case canon.Array:
		items := make([]canon.Value, len(v.Items))
		for i := range v.Items {
			items[i] = replaceValue(v.Items[i])
		}
		v.Items = items
	case canon.Object:
		members := make([]canon.Member, len(v.Members))
		for i, m := range v.Members {
			members[i] = canon.Member{Name: replaceLoneSurrogates(m.Name), Value: replaceValue(m.Value)}
		}
		v.Members = members
	}
	return v
}
