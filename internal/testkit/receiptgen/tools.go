package receiptgen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/receiptverify/verify/verify/canon"
	"github.com/receiptverify/verify/verify/fingerprint"
	"github.com/receiptverify/verify/verify/toolschema"
)

// serverSchemas are the MCP tools/list results written to schemas/. Three
// names are exposed by more than one server with different input schemas
// (search, users.list, tickets.create): the name collision.
var serverSchemas = []struct {
	name string
	json string
}{
	{"crm", `{
  "tools": [
    {
      "name": "users.list",
      "description": "List CRM users, optionally filtered by role.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "limit": {"type": "integer", "minimum": 1, "maximum": 500},
          "offset": {"type": "integer", "minimum": 0},
          "role": {"type": "string", "enum": ["admin", "member", "viewer"]}
        },
        "required": ["limit"]
      }
    },
    {
      "name": "users.get",
      "description": "Fetch one CRM user by id.",
      "inputSchema": {
        "type": "object",
        "properties": {"user_id": {"type": "string", "pattern": "^u_[0-9a-f]{8}$"}},
        "required": ["user_id"]
      }
    },
    {
      "name": "tickets.create",
      "description": "Open a CRM follow-up ticket for an account.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "title": {"type": "string", "maxLength": 200},
          "body": {"type": "string"},
          "priority": {"type": "string", "enum": ["low", "normal", "high"]}
        },
        "required": ["title", "body"]
      }
    },
    {
      "name": "search",
      "description": "Full-text search over contacts and accounts.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "query": {"type": "string"},
          "limit": {"type": "integer", "minimum": 1, "maximum": 100}
        },
        "required": ["query"]
      }
    }
  ]
}
`},
	{"helpdesk", `{
  "tools": [
    {
      "name": "tickets.create",
      "description": "Create a support ticket.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "subject": {"type": "string"},
          "description": {"type": "string"},
          "urgency": {"type": "number", "minimum": 0.0, "maximum": 1.0},
          "tags": {"type": "array", "items": {"type": "string"}}
        },
        "required": ["subject"]
      }
    },
    {
      "name": "tickets.update",
      "description": "Change the status of a support ticket.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "ticket_id": {"type": "string"},
          "status": {"type": "string", "enum": ["open", "pending", "solved", "closed"]}
        },
        "required": ["ticket_id", "status"]
      }
    },
    {
      "name": "users.list",
      "description": "List helpdesk agents of a team.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "team": {"type": "string"},
          "page": {"type": "integer", "minimum": 1}
        }
      }
    },
    {
      "name": "search",
      "description": "Search tickets and knowledge-base articles.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "q": {"type": "string"},
          "max_results": {"type": "integer"},
          "include_closed": {"type": "boolean"}
        },
        "required": ["q"]
      }
    }
  ]
}
`},
	{"files", `{
  "tools": [
    {
      "name": "files.read",
      "description": "Read a file from the shared drive.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "max_bytes": {"type": "integer", "minimum": 1}
        },
        "required": ["path"]
      }
    },
    {
      "name": "files.write",
      "description": "Write or append to a file on the shared drive.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "path": {"type": "string"},
          "content": {"type": "string"},
          "append": {"type": "boolean"}
        },
        "required": ["path", "content"]
      }
    },
    {
      "name": "files.list",
      "description": "List a directory.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "dir": {"type": "string"},
          "recursive": {"type": "boolean"}
        },
        "required": ["dir"]
      }
    },
    {
      "name": "search",
      "description": "Find files whose names match a glob.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "pattern": {"type": "string"},
          "path": {"type": "string"}
        },
        "required": ["pattern"]
      }
    }
  ]
}
`},
	{"billing", `{
  "tools": [
    {
      "name": "invoices.get",
      "description": "Fetch an invoice.",
      "inputSchema": {
        "type": "object",
        "properties": {"invoice_id": {"type": "string"}},
        "required": ["invoice_id"]
      }
    },
    {
      "name": "payments.refund",
      "description": "Refund part or all of a payment.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "payment_id": {"type": "string"},
          "amount": {"type": "number", "exclusiveMinimum": 0},
          "currency": {"type": "string", "enum": ["EUR", "USD", "GBP", "JPY"]}
        },
        "required": ["payment_id", "amount"]
      }
    },
    {
      "name": "currency.convert",
      "description": "Convert an amount between currencies.",
      "inputSchema": {
        "type": "object",
        "properties": {
          "from": {"type": "string"},
          "to": {"type": "string"},
          "amount": {"type": "number"},
          "tolerance": {"type": "number"}
        },
        "required": ["from", "to", "amount"]
      }
    }
  ]
}
`},
}

// driftProperty is what a drifted schema adds to the tool's properties.
const driftProperty = "x_debug_override"

// tool is one (server, name) with its fingerprint and its drifted one.
type tool struct {
	server, name string
	fp, driftFP  string
}

// toolbox indexes the servers' tools.
type toolbox struct {
	tools     []tool   // in schema order
	names     []string // distinct names, sorted
	clean     []string // names exposed by one server only, sorted
	byName    map[string][]int
	colliding map[string]bool // names with more than one fingerprint
	files     map[string][]byte
	set       *toolschema.Set
}

func newToolbox() (*toolbox, error) {
	tb := &toolbox{byName: map[string][]int{}, colliding: map[string]bool{}, files: map[string][]byte{}, set: toolschema.NewSet()}
	for _, s := range serverSchemas {
		data := []byte(s.json)
		tb.files[s.name] = data
		if err := tb.set.Add(s.name, data); err != nil {
			return nil, err
		}
		doc, err := canon.Parse(data, canon.ParseOptions{Duplicates: canon.RejectDuplicates})
		if err != nil {
			return nil, err
		}
		ts := doc.Get("tools")
		for i := range ts.Items {
			t := &ts.Items[i]
			name := t.Get("name").Text
			schema := t.Get("inputSchema")
			fp, err := fingerprint.AsqavTool(canon.RFC8785(), name, schema)
			if err != nil {
				return nil, err
			}
			drifted := *schema
			drifted.Members = slices.Clone(schema.Members)
			for j := range drifted.Members {
				if drifted.Members[j].Name == "properties" {
					p := drifted.Members[j].Value
					p.Members = append(slices.Clone(p.Members), canon.Member{Name: driftProperty, Value: obj(m("type", str("boolean")))})
					drifted.Members[j].Value = p
				}
			}
			dfp, err := fingerprint.AsqavTool(canon.RFC8785(), name, &drifted)
			if err != nil {
				return nil, err
			}
			tb.byName[name] = append(tb.byName[name], len(tb.tools))
			tb.tools = append(tb.tools, tool{server: s.name, name: name, fp: fp, driftFP: dfp})
		}
	}
	// The fingerprints must be the ones the verifier computes from the files.
	for i, t := range tb.set.Tools() {
		if t.Fingerprint != tb.tools[i].fp {
			return nil, fmt.Errorf("receiptgen: fingerprint of %s/%s disagrees with toolschema", t.Server, t.Name)
		}
	}
	for name, idx := range tb.byName {
		tb.names = append(tb.names, name)
		fps := map[string]bool{}
		for _, i := range idx {
			fps[tb.tools[i].fp] = true
		}
		if len(fps) > 1 {
			tb.colliding[name] = true
		} else {
			tb.clean = append(tb.clean, name)
		}
	}
	slices.Sort(tb.names)
	slices.Sort(tb.clean)
	return tb, nil
}

// pick chooses a tool: any name (a colliding one on a random server of
// those exposing it), or, when clean is set, a name only one server has.
func (tb *toolbox) pick(r *rand.Rand, clean bool) *tool {
	names := tb.names
	if clean {
		names = tb.clean
	}
	idx := tb.byName[names[r.IntN(len(names))]]
	return &tb.tools[idx[r.IntN(len(idx))]]
}

// Small builders for canon values.
func str(s string) canon.Value   { return canon.StringValue(s) }
func num(lit string) canon.Value { return canon.Value{Kind: canon.Number, Text: lit} }
func integer(n int) canon.Value  { return num(strconv.Itoa(n)) }
func boolean(b bool) canon.Value {
	if b {
		return canon.Value{Kind: canon.True}
	}
	return canon.Value{Kind: canon.False}
}
func m(name string, v canon.Value) canon.Member { return canon.Member{Name: name, Value: v} }
func obj(ms ...canon.Member) canon.Value        { return canon.ObjectValue(ms...) }
func arr(vs ...canon.Value) canon.Value         { return canon.Value{Kind: canon.Array, Items: vs} }

// Text pools. Some strings are non-ASCII (Latin diacritics, CJK, an astral
// emoji) so the canonical forms exercise UTF-8 output.
var (
	phrases = []string{
		"quarterly renewal", "Zoë Müller onboarding", "東京オフィスのプリンター", "Ångström lab access",
		"naïve café menu", "Łódź warehouse", "🚀 launch checklist", "résumé review", "password reset",
		"VPN drops every hour", "Straße 12 Umzug", "São Paulo office VPN", "refund request", "invoice mismatch",
		"Привет, нужна помощь", "SLA breach follow-up", "export to CSV", "data retention policy",
	}
	teams   = []string{"tier1", "tier2", "billing", "sécurité", "platform"}
	dirs    = []string{"/srv/shared/reports", "/srv/shared/contracts", "/home/agent/tmp", "/srv/shared/Überweisungen", "/srv/shared/設計"}
	exts    = []string{".md", ".csv", ".pdf", ".json", ".txt"}
	globs   = []string{"*.pdf", "report-2026-*.csv", "**/*.md", "invoice_??.json"}
	curr    = []string{"EUR", "USD", "GBP", "JPY"}
	tols    = []string{"0.001", "0.0001", "0.00001", "2.5e-07"}
	levels  = []string{"low", "normal", "high"}
	roles   = []string{"admin", "member", "viewer"}
	states  = []string{"open", "pending", "solved", "closed"}
	tagPool = []string{"vip", "bug", "billing", "étiquette", "urgent", "follow-up"}
)

func oneOf(r *rand.Rand, s []string) string { return s[r.IntN(len(s))] }

func hexN(r *rand.Rand, n int) string {
	const digits = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[r.IntN(16)]
	}
	return string(b)
}

// money is a float literal with two decimals, or a whole float ("12.0").
func money(r *rand.Rand) string {
	cents := 100 + r.IntN(99900)
	if r.IntN(5) == 0 {
		cents -= cents % 100
	}
	if cents%100 == 0 {
		return strconv.Itoa(cents/100) + ".0"
	}
	return fmt.Sprintf("%d.%02d", cents/100, cents%100)
}

// args builds the arguments of a call to t, shaped by that server's schema.
func args(r *rand.Rand, t *tool) canon.Value {
	switch t.server + "/" + t.name {
	case "crm/users.list":
		ms := []canon.Member{m("limit", integer(10+r.IntN(91)))}
		if r.IntN(2) == 0 {
			ms = append(ms, m("offset", integer(r.IntN(20)*50)))
		}
		if r.IntN(2) == 0 {
			ms = append(ms, m("role", str(oneOf(r, roles))))
		}
		return obj(ms...)
	case "crm/users.get":
		return obj(m("user_id", str("u_"+hexN(r, 8))))
	case "crm/tickets.create":
		return obj(m("title", str(oneOf(r, phrases))), m("body", str("Customer wrote: "+oneOf(r, phrases))), m("priority", str(oneOf(r, levels))))
	case "crm/search":
		return obj(m("query", str(oneOf(r, phrases))), m("limit", integer(1+r.IntN(50))))
	case "helpdesk/tickets.create":
		ms := []canon.Member{m("subject", str(oneOf(r, phrases))), m("urgency", num(fmt.Sprintf("0.%02d", r.IntN(100))))}
		if r.IntN(2) == 0 {
			ms = append(ms, m("description", str(oneOf(r, phrases)+" — "+oneOf(r, phrases))))
		}
		if r.IntN(2) == 0 {
			ms = append(ms, m("tags", arr(str(oneOf(r, tagPool)), str(oneOf(r, tagPool)))))
		}
		return obj(ms...)
	case "helpdesk/tickets.update":
		return obj(m("ticket_id", str(fmt.Sprintf("T-%05d", r.IntN(100000)))), m("status", str(oneOf(r, states))))
	case "helpdesk/users.list":
		return obj(m("team", str(oneOf(r, teams))), m("page", integer(1+r.IntN(5))))
	case "helpdesk/search":
		return obj(m("q", str(oneOf(r, phrases))), m("max_results", integer(5+r.IntN(20))), m("include_closed", boolean(r.IntN(2) == 0)))
	case "files/files.read":
		return obj(m("path", str(oneOf(r, dirs)+"/"+hexN(r, 6)+oneOf(r, exts))), m("max_bytes", integer(1024<<r.IntN(8))))
	case "files/files.write":
		return obj(m("path", str(oneOf(r, dirs)+"/notes-"+hexN(r, 4)+".md")), m("content", str("# "+oneOf(r, phrases)+"\n\n"+oneOf(r, phrases))), m("append", boolean(r.IntN(3) == 0)))
	case "files/files.list":
		return obj(m("dir", str(oneOf(r, dirs))), m("recursive", boolean(r.IntN(2) == 0)))
	case "files/search":
		return obj(m("pattern", str(oneOf(r, globs))), m("path", str(oneOf(r, dirs))))
	case "billing/invoices.get":
		return obj(m("invoice_id", str(fmt.Sprintf("INV-2026-%06d", r.IntN(1000000)))))
	case "billing/payments.refund":
		return obj(m("payment_id", str("pay_"+hexN(r, 12))), m("amount", num(money(r))), m("currency", str(oneOf(r, curr))))
	case "billing/currency.convert":
		from := oneOf(r, curr)
		to := oneOf(r, curr)
		ms := []canon.Member{m("from", str(from)), m("to", str(to)), m("amount", num(money(r)))}
		if r.IntN(2) == 0 {
			ms = append(ms, m("tolerance", num(oneOf(r, tols))))
		}
		return obj(ms...)
	}
	return obj()
}
