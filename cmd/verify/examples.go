package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// examples are the command lines each command's --help ends with: what a
// person runs first, from the README's auditor's path where there is one.
var examples = map[string][]string{
	"receipts": {
		"verify receipts --keys jwks.json --schemas schemas/ --at 2026-12-01T00:00:00Z archive/",
		"verify receipts -f jsonl --keys jwks.json receipts.jsonl.gz > results.jsonl",
	},
	"audit": {
		"verify audit --keys jwks.json --schemas schemas/ --at 2026-12-01T00:00:00Z archive/",
		"verify audit --config /etc/verify/verify.toml -q --day 2026-11-30 /var/log/agents/",
	},
	"load": {
		"verify load --db verify-audit.duckdb --keys jwks.json --schemas schemas/ archive/",
		"verify load --db verify-audit.duckdb --keys new-jwks.json --reverify archive/",
	},
	"report": {
		"verify report --db verify-audit.duckdb --day 2026-11-30 --out report/2026-11-30",
		"verify report --db verify-audit.duckdb --day 2026-11-30 --out r --baseline baseline.toml --format ocsf",
		"verify report --lake folds --plan plan.json --day 2026-11-30 --out report/2026-11-30",
	},
	"query": {
		"verify query --db verify-audit.duckdb drift -f csv > drift.csv",
		"verify query --db verify-audit.duckdb drift -f ocsf --baseline baseline.toml --min-severity medium",
		"verify query --db verify-audit.duckdb days",
		"verify query --lake folds failures -f jsonl --min-severity high",
	},
	"attestation": {
		"verify audit --attest signer.pem --keys jwks.json --at 2026-12-01T00:00:00Z archive/",
		"verify attestation --key signer.pub report/verify.intoto.json",
		"verify attestation --key signer.pub --root /srv/audit-copy /srv/audit-copy/report/verify.intoto.json",
	},
	"baseline": {
		"verify baseline --db verify-audit.duckdb --day 2026-11-30 --out baseline.toml",
	},
	"explain": {
		"verify explain --db verify-audit.duckdb archive/agents.jsonl:47",
		"verify explain --keys jwks.json --at 2026-12-01T00:00:00Z archive/agents.jsonl:47",
		"verify explain --db verify-audit.duckdb act_5da92b5935ab2df24efc",
		"verify explain --pack nov.tar.gz archive/agents.jsonl:47",
	},
	"evidence": {
		"verify evidence --db verify-audit.duckdb --from 2026-11-01 --to 2026-11-30 -o nov.tar.gz",
		"verify evidence --db verify-audit.duckdb --day 2026-11-30 -o day.tar.gz",
	},
	"show": {
		"verify show --db verify-audit.duckdb archive/agents.jsonl:47",
		"verify show --db verify-audit.duckdb --root /mnt/old-archive archive/agents.jsonl:47",
	},
	"export": {
		"verify export --db verify-audit.duckdb --parquet export/",
	},
	"plan": {
		"verify plan --keys jwks.json --schemas schemas/ --at 2026-12-01T00:00:00Z --id 2026-11-30 -o plan.json archive/2026-11-30/",
	},
	"finalize": {
		"verify receipts --plan plan.json --emit maps/shard-0 --shard 0",
		"verify finalize --plan plan.json maps/*",
		"verify finalize --plan plan.json --judgments judgments.parquet --shard 0 --emit folds/shard-0 maps/*",
	},
	"summarize": {
		"verify summarize --plan plan.json --results folds/* > results.jsonl",
	},
	"parts": {
		"verify parts --plan plan.json --engine clickhouse maps/* > views.sql",
		"verify parts --plan plan.json --engine clickhouse --judgments maps/* > judgments.sql",
	},
	"judge": {
		"verify judge --plan plan.json --history-keys history --emit judgments maps/*",
		"verify finalize --plan plan.json --judgments judgments/shard-0.parquet --shard 0 --emit folds/shard-0 maps/*",
		"verify judge --plan plan.json --append-history history maps/*",
	},
	"canon": {
		"verify canon receipt.json | sha256sum",
	},
	"fingerprint": {
		"verify fingerprint asqav-tool tools.jsonl",
	},
	"asqav-action": {"verify fingerprint asqav-action actions.jsonl"},
	"asqav-tool":   {"verify fingerprint asqav-tool tools.jsonl"},
	"overturn":     {"verify fingerprint overturn calls.jsonl"},
	"undolog":      {"verify fingerprint undolog calls.jsonl"},
	"version":      {"verify version"},
	"completion":   {"verify completion bash > /etc/bash_completion.d/verify"},
	"man":          {"verify man > verify.1"},
}

// withExamples makes c's --help end with its examples.
func withExamples(c *cli.Command) {
	ex, ok := examples[c.Name]
	if !ok {
		return
	}
	tmpl := c.CustomHelpTemplate
	if tmpl == "" {
		tmpl = cli.CommandHelpTemplate
		if len(c.Subcommands) > 0 {
			tmpl = cli.SubcommandHelpTemplate
		}
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(tmpl, "\n"))
	b.WriteString("\n\nEXAMPLES:\n")
	for _, e := range ex {
		b.WriteString("   " + e + "\n")
	}
	c.CustomHelpTemplate = b.String()
}
