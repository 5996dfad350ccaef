package ferry

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/google/go-cmp/cmp"
)

func decodeServer() *Server {
	return NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler)})
}

var paramsCmp = cmp.AllowUnexported(capsJSON{}, clientCaps{})

// The members Ferry reads are decoded into wireParams, by hand or with
// encoding/json, with encoding/json's values: escapes decoded, null as
// absent, invalid UTF-8 replaced.
func TestDecodeMessageParams(t *testing.T) {
	cursor := "c\u00e9"
	tests := []struct {
		params string
		want   wireParams
	}{
		{`{"name":"echo","arguments":{"a":[1, 2]},"uri":"file:///x","cursor":"c\u00e9"}`,
			wireParams{Name: "echo", Arguments: json.RawMessage(`{"a":[1, 2]}`), URI: "file:///x", Cursor: &cursor}},
		{`{"name":null,"uri":null,"cursor":null,"_meta":null,"arguments":null}`, wireParams{Arguments: json.RawMessage(`null`)}},
		{"{\"name\":\"a\xffb\\ud800\"}", wireParams{Name: "a\uFFFDb\uFFFD"}},
		{`{"_meta":{"progressToken":"t","io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
			`"io.modelcontextprotocol/clientCapabilities":{"sampling":{},"roots":{}},"io.modelcontextprotocol/logLevel":"debug",` +
			`"traceparent":"00-1","tracestate":"a=1","baggage":"b=2","other":{"x":1}}}`,
			wireParams{Meta: requestMeta{ProgressToken: json.RawMessage(`"t"`), Version: "2026-07-28",
				Caps:     capsJSON{seen: true, object: true, caps: clientCaps{sampling: true, roots: true}},
				LogLevel: "debug", TraceContext: &TraceContext{TraceParent: "00-1", TraceState: "a=1", Baggage: "b=2"}}}},
		{`{"_meta":{"progress\u0054oken":7,"io.modelcontextprotocol/clientCapabilities":null}}`,
			wireParams{Meta: requestMeta{ProgressToken: json.RawMessage(`7`), Caps: capsJSON{seen: true}}}},
		{`{"protocolVersion":"2025-03-26","capabilities":{"x":1},"level":"info","inputResponses":{"q":{}},"requestState":"s",` +
			`"ref":{"type":"ref/prompt","name":"p","uri":"u"},"argument":{"name":"a","value":"v"},"context":{"arguments":{"k":"v"}},` +
			`"requestId":"r","notifications":{"toolsListChanged":true,"resourceSubscriptions":["a"]}}`,
			wireParams{ProtocolVersion: "2025-03-26", Capabilities: json.RawMessage(`{"x":1}`), Level: "info",
				InputResponses: json.RawMessage(`{"q":{}}`), RequestState: "s",
				Ref: &struct {
					Type string `json:"type"`
					Name string `json:"name"`
					URI  string `json:"uri"`
				}{"ref/prompt", "p", "u"},
				Argument: &struct {
					Name  string `json:"name"`
					Value string `json:"value"`
				}{"a", "v"},
				Context: &struct {
					Arguments map[string]string `json:"arguments"`
				}{map[string]string{"k": "v"}},
				RequestID: json.RawMessage(`"r"`), Notifications: &listenFilter{ToolsListChanged: true, ResourceSubscriptions: []string{"a"}}}},
	}
	s := decodeServer()
	for _, tt := range tests {
		in, err := s.decodeMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + tt.params + `}`))
		if err != nil || in.perr != nil || in.kind != jsonrpc.KindRequest {
			t.Errorf("%s: %v, %v, %v", tt.params, in.kind, err, in.perr)
			continue
		}
		if diff := cmp.Diff(&tt.want, in.p, paramsCmp); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.params, diff)
		}
	}
}

// What a decoded message keeps is its own: the id, the arguments, the
// progress token and a response's result survive the input's bytes being
// overwritten, and appending to one does not spill into the next.
func TestDecodeMessageOwnsItsBytes(t *testing.T) {
	s := decodeServer()
	body := []byte(`{"jsonrpc":"2.0","id":"abc","method":"tools/call","params":{"name":"n","arguments":{"a":1},"_meta":{"progressToken":5}}}`)
	in, err := s.decodeMessage(body)
	if err != nil || in.perr != nil {
		t.Fatal(err, in.perr)
	}
	resp := []byte(`{"jsonrpc":"2.0","id":9,"result":{"ok":true}}`)
	out, err := s.decodeMessage(resp)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{body, resp} {
		copy(b, bytes.Repeat([]byte("x"), len(b)))
	}
	_ = append(in.m.ID, "!!!!!!"...)
	if string(in.m.ID) != `"abc"` || string(in.p.Arguments) != `{"a":1}` || string(in.p.Meta.ProgressToken) != "5" ||
		in.p.Name != "n" || in.m.Params != nil {
		t.Errorf("request after its bytes changed: id %s, arguments %s, token %s, name %q, params %s",
			in.m.ID, in.p.Arguments, in.p.Meta.ProgressToken, in.p.Name, in.m.Params)
	}
	if string(out.m.ID) != "9" || string(out.m.Result) != `{"ok":true}` {
		t.Errorf("response after its bytes changed: id %s, result %s", out.m.ID, out.m.Result)
	}
}

// A 2026-07-28 tools/call decodes in three allocations: the message and
// its params, the bytes they keep, and the tool's name.
func TestDecodeMessageAllocations(t *testing.T) {
	s := decodeServer()
	body := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"search","arguments":{"q":"x"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	if n := testing.AllocsPerRun(100, func() {
		if _, err := s.decodeMessage(body); err != nil {
			t.Fatal(err)
		}
	}); n > 3 {
		t.Errorf("%v allocations per decode, want 3", n)
	}
}

func TestDecodeMessageRefusals(t *testing.T) {
	s := NewServer("s", "1", &ServerOptions{Logger: slog.New(slog.DiscardHandler), Limits: Limits{MaxJSONDepth: 4}})
	tests := map[string]string{
		`{"a":[[[[1]]]]}`:                     `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message nests arrays and objects more than 4 levels deep"}}`,
		`{"a":1`:                              `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not valid JSON"}}`,
		`{"id":1,"id":2}`:                     `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: invalid envelope member: \"id\" is sent twice"}}`,
		`{"jsonrpc":"2.0","id":3,"method":7}`: `{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: jsonrpc: member \"method\" must not be a JSON number"}}`,
		`{"jsonrpc":"2.0","id":3.5,"method":"ping"}`: `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: jsonrpc: id must be a string or an integer"}}`,
	}
	for body, want := range tests {
		in, err := s.decodeMessage([]byte(body))
		if err == nil {
			t.Errorf("%s: decoded", body)
			continue
		}
		if got := decodeError(in.m, err); string(got) != want {
			t.Errorf("%s:\n%s\nwant %s", body, got, want)
		}
	}
	if _, err := s.decodeBatch([]byte(`[{"a":[[[1]]]}]`), DefaultMaxBatchItems); err == nil || !strings.Contains(err.Error(), "4 levels") {
		t.Errorf("batch too deep: %v", err)
	}
}

// repeatsMembers reports whether params sends a member Ferry reads
// twice or as a case variant, in params or in its _meta, as
// encoding/json's tokenizer reads the names.
func repeatsMembers(params json.RawMessage) bool {
	metas, repeats := members(params, paramNames[:])
	for _, meta := range metas {
		if _, r := members(meta, metaNames[:]); r {
			return true
		}
	}
	return repeats
}

// members walks the object obj: it returns the values of its _meta
// members and whether it sends one of known twice or as a case variant.
func members(obj json.RawMessage, known []string) (metas []json.RawMessage, repeats bool) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		var v json.RawMessage
		if err != nil || dec.Decode(&v) != nil {
			return metas, repeats
		}
		name := tok.(string)
		for _, k := range known {
			if strings.EqualFold(name, k) {
				repeats = repeats || seen[k] || name != k
				seen[k] = true
			}
		}
		if name == "_meta" {
			metas = append(metas, v)
		}
	}
	return metas, repeats
}

// FuzzDecodeMessageParams holds the params decoder to encoding/json: for
// any message whose params sends no member Ferry reads twice or as a case
// variant, the params are refused exactly when json.Unmarshal into
// wireParams fails, and decode to the same values; the others are
// refused.
func FuzzDecodeMessageParams(f *testing.F) {
	for _, seed := range decodeParamsSeeds {
		f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":` + seed + `}`))
	}
	s := decodeServer()
	f.Fuzz(func(t *testing.T, data []byte) {
		raw, _, err := jsonrpc.Decode(data)
		if err != nil || raw.Params == nil {
			return
		}
		params := append(json.RawMessage(nil), raw.Params...)
		in, err := s.decodeMessage(data)
		if err != nil || in.p == nil {
			return
		}
		if repeatsMembers(params) {
			if in.perr == nil {
				t.Fatalf("%s: a member twice or a variant, accepted", params)
			}
			return
		}
		want := new(wireParams)
		jerr := json.Unmarshal(params, want)
		if (jerr == nil) != (in.perr == nil) {
			t.Fatalf("%s: encoding/json says %v, the decoder %v", params, jerr, in.perr)
		}
		if jerr == nil && !cmp.Equal(want, in.p, paramsCmp) {
			t.Fatalf("%s (-json +decoder):\n%s", params, cmp.Diff(want, in.p, paramsCmp))
		}
	})
}

var decodeParamsSeeds = []string{
	`{"name":"echo","arguments":{"message":"hi"}}`,
	`{"name":"steps","_meta":{"progressToken":1}}`,
	`{"name":"echo","arguments":{"message":"m"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}`,
	`{"name":"confirm","inputResponses":{"q1":{"action":"accept"}},"requestState":"e30.AA","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"debug"}}`,
	`{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"f","version":"1"}}`,
	`{"cursor":"ZWNobw"}`, `{"uri":"file:///notes/1"}`, `{"level":"debug"}`, `{"requestId":7}`,
	`{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"},"context":{"arguments":{"a":"b"}}}`,
	`{"notifications":{"toolsListChanged":true,"resourceSubscriptions":["file:///a"]}}`,
	`{"name":5}`, `{"_meta":[]}`, `{"ref":{"type":1}}`, `{"cursor":null,"name":null}`, `{"NAME":"x"}`, `{"name":"a","name":"b"}`,
	`{"_meta":{"traceparent":"00-1","tracestate":null,"baggage":"b"}}`, `{"_meta":{"Traceparent":"x"}}`,
	"{\"na\\u006de\":\"\\ud800x\xff\"}", `{"notifications":{"resourceSubscriptions":"x"}}`,
}

// However many elements a batch crams into a body, they cost no memory
// each: a batch over the item limit is refused whole, its elements past
// the limit checked but not kept. (encoding/json split a batch of 100,000
// elements into 100,000 copies before the limit refused it.)
func TestBatchOverTheLimitCostsNoMemoryPerElement(t *testing.T) {
	h := NewHTTPHandler(decodeServer(), nil)
	id := initialize(t, h, `{}`)
	body := "[" + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"ping"},`, 100_000) + "1]"
	var answer string
	allocs := testing.AllocsPerRun(1, func() { answer = post(h, id, body).Body.String() })
	if !strings.Contains(answer, "the batch has 100001 messages; at most 100 are served") {
		t.Errorf("answer %.300s", answer)
	}
	if allocs > 2000 {
		t.Errorf("%v allocations for a batch of 100,001 elements", allocs)
	}
}

// BenchmarkDecodeMessage measures the decode of the benchmarks' legacy
// tools/call, add(2, 3), with its params.
func BenchmarkDecodeMessage(b *testing.B) {
	s := decodeServer()
	msg := []byte(`{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":2,"b":3}}}`)
	b.SetBytes(int64(len(msg)))
	for b.Loop() {
		if _, err := s.decodeMessage(msg); err != nil {
			b.Fatal(err)
		}
	}
}
