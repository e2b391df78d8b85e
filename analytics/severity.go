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

// techniquesColumn is the column a finding row's technique ids are in,
// right after finding_id (techniquesOf).
const techniquesColumn = "techniques"

// withFindingIDs gives a finding query's rows their finding_id and
// techniques, in place.
func withFindingIDs(t *table.Table) {
	var sh findingShape
	t.Columns, sh = shapeFindings(t.Columns)
	for i, r := range t.Rows {
		t.Rows[i] = sh.row(r)
	}
}

// findingShape turns a finding query's scanned row into the row users
// get: the finding_key (at key) hashed into finding_id, the techniques of
// its finding and kind (at finding and kind) inserted after it. A key of
// -1 leaves rows as they are (not a finding query).
type findingShape struct{ key, finding, kind int }

// shapeFindings is a finding query's columns as users get them, and the
// shape of its rows; other queries' columns come back as they are.
func shapeFindings(columns []string) ([]string, findingShape) {
	sh := findingShape{key: slices.Index(columns, findingKeyColumn), finding: slices.Index(columns, "finding"), kind: slices.Index(columns, "kind")}
	if sh.kind < 0 { // completeness rows: their status is their kind
		sh.kind = slices.Index(columns, "status")
	}
	if sh.key < 0 || sh.finding < 0 {
		return columns, findingShape{key: -1}
	}
	out := slices.Clone(columns)
	out[sh.key] = findingIDColumn
	return slices.Insert(out, sh.key+1, techniquesColumn), sh
}

// row is r shaped; r's backing array may be reused.
func (sh findingShape) row(r []any) []any {
	if sh.key < 0 {
		return r
	}
	if k, ok := r[sh.key].(string); ok {
		r[sh.key] = findingID(k)
	}
	kind := ""
	if sh.kind >= 0 {
		kind, _ = r[sh.kind].(string)
	}
	finding, _ := r[sh.finding].(string)
	return slices.Insert(r, sh.key+1, any(techniqueIDs(finding, kind)))
}
