package ferry

import (
	"encoding/json"
	"testing"

	"runtime"
)

func TestCapsJSONFindsTopLevelCapabilitiesOnly(t *testing.T) {
	tests := []struct {
		in                           string
		object                       bool
		sampling, elicitation, roots bool
	}{
		{`{}`, true, false, false, false},
		{`{"sampling":{},"elicitation":{"form":{}},"roots":{"listChanged":true}}`, true, true, true, true},
		{`{ "sampling" : {} }`, true, true, false, false},
		{`{"experimental":{"sampling":{},"roots":{}}}`, true, false, false, false},
		{`{"x":"\"sampling\":","elicitation":{}}`, true, false, true, false},
		{`{"a":["sampling",{"roots":1}]}`, true, false, false, false},
		{`[]`, false, false, false, false},
		{`null`, false, false, false, false},
	}
	for _, tt := range tests {
		var m struct {
			Caps capsJSON `json:"caps"`
		}
		if err := json.Unmarshal([]byte(`{"caps":`+tt.in+`}`), &m); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		c := m.Caps
		if !c.seen || c.object != tt.object || c.caps.sampling != tt.sampling || c.caps.elicitation != tt.elicitation || c.caps.roots != tt.roots {
			t.Errorf("%s: got %+v", tt.in, c)
		}
	}
}

func TestVersionJSONInternsKnownVersions(t *testing.T) {
	for _, in := range []string{`"2026-07-28"`, `"2025-06-18"`, `"1999-01-01"`, `"a\"b"`} {
		var v versionJSON
		var want string
		_ = json.Unmarshal([]byte(in), &want)
		if err := json.Unmarshal([]byte(in), &v); err != nil || string(v) != want {
			t.Errorf("%s: got %q, %v; want %q", in, v, err, want)
		}
	}
}

var sinkRequest *request

// Every request allocates one request struct: it must stay within the
// 576-byte size class (objects over 512 bytes that hold pointers carry an
// 8-byte header, so the struct may be at most 568 bytes), or every call
// pays for a bigger one.
func TestRequestStaysInItsSizeClass(t *testing.T) {
	least := uint64(1 << 20)
	for range 3 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range 1000 {
			sinkRequest = new(request)
		}
		runtime.ReadMemStats(&after)
		least = min(least, (after.TotalAlloc-before.TotalAlloc)/1000)
	}
	if least > 576 {
		t.Errorf("a request allocates %d bytes, want at most 576: keep new fields in padding or behind a pointer", least)
	}
}
