package verify

import (
	"strings"

	"github.com/receiptverify/verify/verify/fingerprint"
	"github.com/receiptverify/verify/verify/toolschema"
)

// checkTool judges the receipt's tool_name / tool_fingerprint against the
// expected schemas. Drift and unknown tools are findings on this axis; they
// fail the receipt only under --strict-schemas (the receipt is genuine, the
// tool was not the expected one).
func (c *check) checkTool() {
	if c.has(AxisToolFingerprint) {
		return
	}
	f := &c.res.Fields
	c.res.strictTool = c.v.strictSchemas
	if c.v.schemas == nil {
		c.notRun(AxisToolFingerprint, "no expected schemas given")
		return
	}
	if f.ToolName == "" || f.ToolFingerprint == "" {
		c.res.set(AxisToolFingerprint, StatusNotRun, ReasonToolAbsent, "receipt carries no tool_name and tool_fingerprint pair")
		return
	}
	if len(f.ToolFingerprint) != fingerprint.ToolFingerprintLen || strings.Trim(f.ToolFingerprint, "0123456789abcdef") != "" {
		c.fail(AxisToolFingerprint, ReasonBadField, "tool_fingerprint is not 32 lowercase hex characters")
		return
	}
	switch m, servers := c.v.schemas.Lookup(f.ToolName, f.ToolFingerprint); m {
	case toolschema.Matched:
		f.ToolServers = servers
		c.res.Fingerprints.ToolFingerprint = f.ToolFingerprint
		c.pass(AxisToolFingerprint, "matches "+strings.Join(servers, ", "))
	case toolschema.Drift:
		c.fail(AxisToolFingerprint, ReasonToolDrift, "tool "+f.ToolName+" is expected, but not with fingerprint "+f.ToolFingerprint)
	default:
		c.fail(AxisToolFingerprint, ReasonToolUnknown, "no expected server exposes a tool named "+f.ToolName)
	}
}
