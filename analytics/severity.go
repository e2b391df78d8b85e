package analytics

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/receiptverify/verify/internal/analytics/table"
)

// findingKeyColumn is the column a finding query names its row's
// identifying facts in; RunQuery replaces it with findingIDColumn, the
// first 32 hex digits of the key's SHA-256, so that a SIEM can
// deduplicate a row reported again on a re-run.
const (
	findingKeyColumn = "finding_key"
	findingIDColumn  = "finding_id"
)

// findingID is the finding_id of a finding_key.
func findingID(key string) string {
	h := sha256.Sum256([]byte(key))
	return hex.EncodeToString(h[:16])
}

// withFindingIDs replaces a finding_key column by finding_id, in place.
func withFindingIDs(t *table.Table) {
	i := renameFindingKey(t.Columns)
	for _, r := range t.Rows {
		toFindingID(r, i)
	}
}

// renameFindingKey renames the finding_key column of columns finding_id and
// returns its index, -1 when there is none.
func renameFindingKey(columns []string) int {
	i := slices.Index(columns, findingKeyColumn)
	if i >= 0 {
		columns[i] = findingIDColumn
	}
	return i
}

// toFindingID replaces row's finding key (at i, if i >= 0) by its FindingID.
func toFindingID(row []any, i int) {
	if i < 0 {
		return
	}
	if k, ok := row[i].(string); ok {
		row[i] = findingID(k)
	}
}
