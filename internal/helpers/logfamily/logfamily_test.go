package logfamily

import "testing"

func TestOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"logs/gateway.jsonl":              "logs/gateway.jsonl",
		"logs/gateway.jsonl.1":            "logs/gateway.jsonl",
		"logs/gateway.jsonl.12.gz":        "logs/gateway.jsonl",
		"logs/gateway.jsonl-20261102.gz":  "logs/gateway.jsonl",
		"logs/gateway.jsonl-2026110203-2": "logs/gateway.jsonl",
		"/var/log/agent/receipts.log.gz":  "/var/log/agent/receipts.log",
		"a.json":                          "a.json",
		"notes.txt.1":                     "notes.txt.1",
		"x.jsonl.1/inner.ndjson-20261101": "x.jsonl.1/inner.ndjson",
		"receipts.jsonl.bak":              "receipts.jsonl.bak",
	} {
		if got := Of(in); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}
