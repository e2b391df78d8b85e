package analytics

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/receiptverify/verify/verify/toolschema"
)

func toolSet(t *testing.T, n int, servers ...string) *toolschema.Set {
	t.Helper()
	set := toolschema.NewSet()
	for _, server := range servers {
		var b strings.Builder
		b.WriteString(`{"tools":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"name":"tool.%d","inputSchema":{"type":"object","properties":{"a%d":{"type":"string"}}}}`, i, i)
		}
		b.WriteString(`]}`)
		if err := set.Add(server, []byte(b.String())); err != nil {
			t.Fatal(err)
		}
	}
	return set
}

func countRows(t *testing.T, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.SQL().QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestExpectedToolsBulk: a set of tools is added in bulk, once; the same
// set again adds nothing and is not read again (rows deleted by hand stay
// deleted), a changed set adds its new tools only.
func TestExpectedToolsBulk(t *testing.T) {
	t.Parallel()
	db := openTestDB(t)
	ctx := context.Background()
	conn, err := db.SQL().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	add := func(set *toolschema.Set) {
		t.Helper()
		if err := addExpectedTools(ctx, conn, set); err != nil {
			t.Fatal(err)
		}
	}
	add(toolSet(t, 5000, "a", "b"))
	if n := countRows(t, db, "expected_tools"); n != 10000 {
		t.Fatalf("%d tools, want 10000", n)
	}
	if _, err := db.SQL().Exec("DELETE FROM expected_tools WHERE server = 'b'"); err != nil {
		t.Fatal(err)
	}
	add(toolSet(t, 5000, "a", "b")) // the same set: not added again
	if n := countRows(t, db, "expected_tools"); n != 5000 {
		t.Fatalf("the same set was added again: %d tools", n)
	}
	add(toolSet(t, 5001, "a")) // changed: one new tool
	if n := countRows(t, db, "expected_tools"); n != 5001 {
		t.Fatalf("%d tools after a changed set, want 5001", n)
	}
	if n := countRows(t, db, "expected_tool_sets"); n != 2 {
		t.Fatalf("%d sets recorded, want 2", n)
	}
	// The staging table is gone.
	var staged int
	if err := conn.QueryRowContext(ctx, "SELECT count(*) FROM duckdb_tables() WHERE table_name = 'staged_expected_tools'").Scan(&staged); err != nil || staged != 0 {
		t.Fatalf("staging table left: %d %v", staged, err)
	}
}

// TestToolSetSHA256Order: the set's hash does not depend on the order
// the tools came in.
func TestToolSetSHA256Order(t *testing.T) {
	t.Parallel()
	a := []toolschema.Tool{{Server: "s", Name: "x", Fingerprint: "1"}, {Server: "s", Name: "y", Fingerprint: "2"}}
	b := []toolschema.Tool{a[1], a[0]}
	if toolSetSHA256(a) != toolSetSHA256(b) {
		t.Fatal("order changed the hash")
	}
	c := []toolschema.Tool{{Server: "s", Name: "x1", Fingerprint: ""}, {Server: "s", Name: "y", Fingerprint: "2"}}
	d := []toolschema.Tool{{Server: "s", Name: "x", Fingerprint: "1"}, {Server: "s", Name: "y", Fingerprint: "2"}}
	if toolSetSHA256(c) == toolSetSHA256(d) {
		t.Fatal("different sets, one hash")
	}
}
