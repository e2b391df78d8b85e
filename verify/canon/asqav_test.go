package canon

import (
	"math"
	"testing"
	"time"
)

func TestPythonRepr(t *testing.T) {
	cases := map[float64]string{
		500:                    "500.0",
		1e16:                   "1e+16",
		1e15:                   "1000000000000000.0",
		9999999999999998:       "9999999999999998.0",
		1e-5:                   "1e-05",
		1e-4:                   "0.0001",
		0.1:                    "0.1",
		-1.5:                   "-1.5",
		1.5e300:                "1.5e+300",
		5e-324:                 "5e-324",
		math.MaxFloat64:        "1.7976931348623157e+308",
		123456789.125:          "123456789.125",
		math.Copysign(0, -1):   "-0.0",
		0:                      "0.0",
		2.5e-5:                 "2.5e-05",
		1234567890123456789e10: "1.2345678901234568e+28",
	}
	pointThree := 0.1
	pointThree += 0.2
	cases[pointThree] = "0.30000000000000004"
	for f, want := range cases {
		if got := string(AppendPythonRepr(nil, f)); got != want {
			t.Errorf("repr(%g) = %s, want %s", f, got, want)
		}
	}
}

func TestAsqavDialect(t *testing.T) {
	cases := []struct {
		in, want string // want "" means rejected
	}{
		{`{"a":500.0}`, `{"a":500.0}`},
		{`{"a":500}`, `{"a":500}`},
		{`{"a":1e16}`, `{"a":1e+16}`},
		{`{"a":1E-5}`, `{"a":1e-05}`},
		{`{"a":-0}`, `{"a":0}`},
		{`{"a":-0.0}`, `{"a":-0.0}`},
		{`{"a":9007199254740993}`, `{"a":9007199254740993}`},
		{`{"a":123456789012345678901234567890}`, `{"a":123456789012345678901234567890}`},
		{`{"a":1e400}`, ``},
		{`{"a":1,"a":2}`, ``},
		{`"\ud800"`, ``},
		{`{"b":"é","a":"\u0007\u007f"}`, "{\"a\":\"\\u0007\x7f\",\"b\":\"é\"}"},
		{`{"＠":1,"😀":1}`, `{"😀":1,"＠":1}`},
	}
	for _, c := range cases {
		got, err := Asqav().Canonicalize([]byte(c.in))
		if c.want == "" {
			if err == nil {
				t.Errorf("%s: accepted as %s, want rejection", c.in, got)
			}
			continue
		}
		if err != nil || string(got) != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	if got, _ := AsqavCodePoint().Canonicalize([]byte(`{"😀":1,"＠":1}`)); string(got) != `{"＠":1,"😀":1}` {
		t.Errorf("asqav-codepoint order: %s", got)
	}
	deep := make([]byte, 0, 402)
	for i := 0; i < 201; i++ {
		deep = append(deep, '[')
	}
	for i := 0; i < 201; i++ {
		deep = append(deep, ']')
	}
	if _, err := Asqav().Canonicalize(deep); err == nil {
		t.Error("201 levels accepted; the Asqav() limit is 200")
	}
	if _, err := Asqav().Canonicalize(deep[1 : len(deep)-1]); err != nil {
		t.Errorf("200 levels rejected: %v", err)
	}
}

func TestAsqavAt(t *testing.T) {
	if AsqavAt(AsqavUTF16Since().Add(-time.Second)) != AsqavCodePoint() {
		t.Error("before the switch: want code-point order")
	}
	if AsqavAt(AsqavUTF16Since()) != Asqav() {
		t.Error("at the switch: want UTF-16 order")
	}
}
