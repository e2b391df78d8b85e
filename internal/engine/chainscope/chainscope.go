// Package chainscope names what each format scopes its chains by, for the
// notes of package verify and of the stream engine alike.
package chainscope

// What names what the chains of a format are scoped by, for
// notes: "issuer", "plan_id"; "format" when by the format alone. Every
// format of package verify whose chain rule has a scope has its entry
// here (TestChainScopeWhat there pins it), so that the verifier and a
// stream's index name a scope alike.
func What(format string) string {
	switch format {
	case "acta":
		return "issuer"
	case "aerf":
		return "plan_id"
	case "agentreceipts":
		return "chain_id"
	case "asqav-native":
		return "issuer, org, agent or session"
	case "pipelock-action-v1":
		return "signer_key"
	case "obsigna-checkpoint":
		return "the chain_id it names"
	case "sb-runtime":
		return "pubkey"
	case "scitt-statement":
		return "NOA payload's scope.tenant and scope.chain"
	case "c2sp-checkpoint":
		return "the chain its origin names"
	}
	return "format"
}
