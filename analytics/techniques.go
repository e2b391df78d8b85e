package analytics

import "slices"

// Technique is a public technique id a finding kind maps onto, so that a
// SIEM can pivot from a row to the threat it is evidence of.
type Technique struct {
	ID        string // SAFE-T1201, T1565.001, MCP03:2025
	Framework string // safe-mcp, mitre-attack or owasp-mcp-top10
	Name      string
	URL       string
}

// The frameworks a Technique's ID belongs to.
const (
	SafeMCP     = "safe-mcp"
	MITREATTACK = "mitre-attack"
	OWASPMCP    = "owasp-mcp-top10"
)

var (
	safeT1004 = Technique{"SAFE-T1004", SafeMCP, "Server Impersonation / Name-Collision", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1004"}
	safeT1103 = Technique{"SAFE-T1103", SafeMCP, "Fake Tool Invocation (Function Spoofing)", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1103"}
	safeT1201 = Technique{"SAFE-T1201", SafeMCP, "MCP Rug Pull Attack", "https://github.com/SAFE-MCP/safe-mcp/tree/main/techniques/SAFE-T1201"}
	attT1036  = Technique{"T1036", MITREATTACK, "Masquerading", "https://attack.mitre.org/techniques/T1036/"}
	attT1070  = Technique{"T1070", MITREATTACK, "Indicator Removal", "https://attack.mitre.org/techniques/T1070/"}
	attT1195  = Technique{"T1195", MITREATTACK, "Supply Chain Compromise", "https://attack.mitre.org/techniques/T1195/"}
	attT1565  = Technique{"T1565.001", MITREATTACK, "Data Manipulation: Stored Data Manipulation", "https://attack.mitre.org/techniques/T1565/001/"}
	owaspMCP3 = Technique{"MCP03:2025", OWASPMCP, "Tool Poisoning", "https://owasp.org/www-project-mcp-top-10/"}
	owaspMCP8 = Technique{"MCP08:2025", OWASPMCP, "Lack of Audit and Telemetry", "https://owasp.org/www-project-mcp-top-10/"}
	owaspMCP9 = Technique{"MCP09:2025", OWASPMCP, "Shadow MCP Servers", "https://owasp.org/www-project-mcp-top-10/"}
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
var findingTechniques = map[string][]Technique{
	"drift":      {safeT1201, owaspMCP3, attT1195},
	"collisions": {safeT1004, owaspMCP9, attT1036},
	"replays":    {safeT1103, attT1565},
	"failures":   {safeT1103, attT1565, owaspMCP8},
	"rejects":    {attT1070, owaspMCP8},
}

// kindWithout names a finding's kinds that are not evidence of a
// technique: a duplicate delivery is a pipeline's re-send, not a replay.
var kindWithout = map[string][]string{
	"replays": {"duplicate"},
}

// TechniquesOf is the techniques a row of finding of kind (its kind
// column, "" when it has none) is evidence of.
func TechniquesOf(finding, kind string) []Technique {
	if slices.Contains(kindWithout[finding], kind) {
		return nil
	}
	return findingTechniques[finding]
}

// techniqueIDs is TechniquesOf's ids, as the techniques column holds them.
func techniqueIDs(finding, kind string) []string {
	ts := TechniquesOf(finding, kind)
	ids := make([]string, len(ts))
	for i, t := range ts {
		ids[i] = t.ID
	}
	return ids
}
