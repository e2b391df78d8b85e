package analytics

import "slices"

// technique is a public technique id a finding kind maps onto, so that a
// SIEM can pivot from a row to the threat it is evidence of.
type technique struct {
	ID        string // SAFE-T1201, T1565.001, MCP03:2025
	Framework string // safe-mcp, mitre-attack or owasp-mcp-top10
	Name      string
	URL       string
}

// The frameworks a technique's ID belongs to.
const (
	safeMCP     = "safe-mcp"
	mitreATTACK = "mitre-attack"
	owaspMCP    = "owasp-mcp-top10"
)

var (
	safeT1004 = technique{"SAFE-T1004", safeMCP, "Server Impersonation / Name-Collision", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1004"}
	safeT1103 = technique{"SAFE-T1103", safeMCP, "Fake Tool Invocation (Function Spoofing)", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1103"}
	safeT1201 = technique{"SAFE-T1201", safeMCP, "MCP Rug Pull Attack", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1201"}
	attT1036  = technique{"T1036", mitreATTACK, "Masquerading", "https://attack.mitre.org/techniques/T1036/"}
	attT1070  = technique{"T1070", mitreATTACK, "Indicator Removal", "https://attack.mitre.org/techniques/T1070/"}
	attT1195  = technique{"T1195", mitreATTACK, "Supply Chain Compromise", "https://attack.mitre.org/techniques/T1195/"}
	attT1562  = technique{"T1562", mitreATTACK, "Impair Defenses", "https://attack.mitre.org/techniques/T1562/"}
	attT1565  = technique{"T1565.001", mitreATTACK, "Data Manipulation: Stored Data Manipulation", "https://attack.mitre.org/techniques/T1565/001/"}
	owaspMCP3 = technique{"MCP03:2025", owaspMCP, "Tool Poisoning", "https://owasp.org/www-project-mcp-top-10/"}
	owaspMCP8 = technique{"MCP08:2025", owaspMCP, "Lack of Audit and Telemetry", "https://owasp.org/www-project-mcp-top-10/"}
	owaspMCP9 = technique{"MCP09:2025", owaspMCP, "Shadow MCP Servers", "https://owasp.org/www-project-mcp-top-10/"}
)

// findingTechniques is the one table of technique ids per finding (a
// finding query's name): every row of the finding carries them, in the
// rows' techniques column, the reports, OCSF and SARIF.
//
//   - drift: a tool's definition changed under a name the agent trusted
//     (a rug pull; tool poisoning).
//   - collisions: two servers' tools under one name (impersonation).
//   - replays: a signed call presented again (a spoofed invocation).
//   - failures: a forged, tampered or unsigned receipt in the archive
//     (stored data manipulation of the audit trail).
//   - rejects: lines that cannot be read as receipts (the audit trail
//     damaged or removed).
//   - completeness: a chain truncated or interrupted (receipts of the
//     audit trail removed); a transparency log's split view, failed
//     consistency proof or rollback (the log rewritten).
//   - gaps: a source silent or thin (its logging stopped or cut: the
//     audit trail impaired).
var findingTechniques = map[string][]technique{
	"drift":        {safeT1201, owaspMCP3, attT1195},
	"collisions":   {safeT1004, owaspMCP9, attT1036},
	"replays":      {safeT1103, attT1565},
	"failures":     {safeT1103, attT1565, owaspMCP8},
	"rejects":      {attT1070, owaspMCP8},
	"completeness": {attT1070, owaspMCP8},
	"gaps":         {attT1562, attT1070, owaspMCP8},
}

// kindWithout names a finding's kinds that are not evidence of a
// technique: a duplicate delivery is a pipeline's re-send, not a replay.
var kindWithout = map[string][]string{
	"replays":      {"duplicate"},
	"completeness": {"complete", "open", "unknown", "consistent"},
}

// techniquesOf is the techniques a row of finding of kind (its kind
// column, "" when it has none) is evidence of.
func techniquesOf(finding, kind string) []technique {
	if slices.Contains(kindWithout[finding], kind) {
		return nil
	}
	return findingTechniques[finding]
}

// techniqueIDs is techniquesOf's ids, as the techniques column holds them.
func techniqueIDs(finding, kind string) []string {
	ts := techniquesOf(finding, kind)
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}
