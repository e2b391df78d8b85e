package keys

// Limits on key files. Key files are trust material chosen by the operator,
// but they are still parsed from bytes that may be damaged or hostile.
const (
	// MaxFileBytes is the largest key file Load accepts. An Asqav entry with
	// an ML-DSA-87 key is about 4 kB, so this holds a few thousand keys.
	MaxFileBytes = 8 << 20

	// MaxEntriesPerFile bounds the entries (loaded or skipped) in one file.
	MaxEntriesPerFile = 4096

	// MaxKeys bounds the keys of all snapshots merged into one Directory.
	MaxKeys = 1 << 16

	// MaxIDBytes bounds kid, agent_id, issuer_id, org_id and DIDs.
	MaxIDBytes = 1024
)
