package canon

// Kind is the JSON type of a Value.
type Kind uint8

// The JSON types. False and True are separate kinds so a Value needs no
// extra field for booleans.
const (
	Null Kind = iota
	False
	True
	Number
	String
	Array
	Object
)

var kindNames = [...]string{"null", "false", "true", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "invalid"
}

// Value is one parsed JSON value. It keeps what encoding/json loses and the
// dialects need: the exact number literal, member order as written, and
// strings as decoded text (lone surrogates, where a parse allows them, are
// kept in WTF-8 form so a dialect can re-escape them).
type Value struct {
	Kind Kind
	// Text is the number literal exactly as written (Number), or the
	// decoded string (String).
	Text    string
	Items   []Value  // Array elements, in order.
	Members []Member // Object members, in input order.
}

// Member is one name/value pair of an object.
type Member struct {
	Name  string
	Value Value
}

// Get returns the value of the object member called name, or nil.
func (v *Value) Get(name string) *Value {
	if v == nil || v.Kind != Object {
		return nil
	}
	for i := range v.Members {
		if v.Members[i].Name == name {
			return &v.Members[i].Value
		}
	}
	return nil
}

// StringValue builds a String value.
func StringValue(s string) Value { return Value{Kind: String, Text: s} }

// ObjectValue builds an Object value from members, in the order given.
func ObjectValue(members ...Member) Value { return Value{Kind: Object, Members: members} }

// EmptyObject is {}.
func EmptyObject() Value { return Value{Kind: Object} }
