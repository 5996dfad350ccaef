package jsonrpc

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// recorder is a Params that keeps every member it is handed.
type recorder struct {
	names, values []string
	fail          string // a member name to refuse
}

func (r *recorder) Member(name, value []byte) error {
	r.names, r.values = append(r.names, string(name)), append(r.values, string(value))
	if string(name) == r.fail {
		return errors.New("refused " + r.fail)
	}
	return nil
}

// testDecoder is the decoder of the tests: Ferry's default depth.
var testDecoder = Decoder{MaxDepth: 64, Methods: []string{"ping", "tools/call"}}

func decodeOne(t *testing.T, in string, maxDepth int) (*Message, Result, error) {
	t.Helper()
	dc := Decoder{MaxDepth: maxDepth}
	m := new(Message)
	r, err := dc.Decode([]byte(in), m, nil)
	return m, r, err
}

// Every way a message can be refused, with the error class, and the
// message where the server's answers quote it.
func TestDecodeRefuses(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	tests := []struct {
		name  string
		in    string
		abort error  // ErrParse, ErrTooDeep, ErrMember
		msg   string // the abort's or the Result's error, when not empty
	}{
		{"empty", ``, ErrParse, ""},
		{"space", ` `, ErrParse, ""},
		{"truncated", `{"jsonrpc":"2.0","id":`, ErrParse, ""},
		{"trailing comma", `{"jsonrpc":"2.0","id":1,}`, ErrParse, ""},
		{"trailing garbage", `{"jsonrpc":"2.0","id":1,"method":"ping"} x`, ErrParse, ""},
		{"two values", `{} {}`, ErrParse, ""},
		{"bad escape in params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":"\x"}}`, ErrParse, ""},
		{"control character", "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"a\tb\"}", ErrParse, ""},
		{"truncated literal in params", `{"params":{"":f0`, ErrParse, ""},
		{"truncated literal at the end", `{"params":{"a":tru`, ErrParse, ""},
		{"at the limit", `{"a":` + deep(7) + `}`, nil, ""},
		{"one too deep", `{"a":` + deep(8) + `}`, ErrTooDeep, "jsonrpc: the message nests too deeply: more than 8 levels of arrays and objects"},
		{"too deep in params", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":` + deep(7) + `}}`, ErrTooDeep, ""},
		{"too deep before a syntax error", `{"a":` + deep(9) + `,}`, ErrTooDeep, ""},
		{"brackets in strings do not count", `{"a":"` + deep(100) + `"}`, nil, ""},
		{"method twice", `{"jsonrpc":"2.0","id":1,"method":"ping","method":"tools/call"}`, ErrMember,
			`jsonrpc: invalid envelope member: "method" is sent twice`},
		{"id twice after a nested value", `{"jsonrpc":"2.0","params":{"x":[[1]],"id":1},"id":1,"method":"x","id":2}`, ErrMember, ""},
		{"case variant", `{"jsonrpc":"2.0","id":1,"Method":"ping"}`, ErrMember,
			`jsonrpc: invalid envelope member: "Method" is not a member; the member is "method"`},
		{"folded variant", `{"jsonrpc":"2.0","id":1,"method":"ping","paramſ":{}}`, ErrMember,
			`jsonrpc: invalid envelope member: "paramſ" is not a member; the member is "params"`},
		{"escaped repeat", `{"jsonrpc":"2.0","id":1,"method":"ping","\u006dethod":"x"}`, ErrMember, ""},
		{"escaped case variant", `{"jsonrpc":"2.0","id":1,"\u004Dethod":"ping"}`, ErrMember, ""},
		{"member error before a syntax error", `{"id":1,"id":2,,}`, ErrMember, ""},
		{"long keys are no members", `{"jsonrpc":"2.0","id":1,"method":"x","parameters":{},"identifier":2}`, nil, ""},
		{"nested members may repeat", `{"jsonrpc":"2.0","id":1,"method":"x","params":{"Method":1,"id":2,"id":3}}`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := decodeOne(t, tt.in, 8)
			if tt.abort == nil && err != nil || tt.abort != nil && !errors.Is(err, tt.abort) {
				t.Fatalf("Decode(%s) = %v, want %v", tt.in, err, tt.abort)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("error %q, want %q", err, tt.msg)
			}
		})
	}
}

// Messages that are JSON but not JSON-RPC are decoded (their id can be
// echoed) and refused with the Result's error.
func TestDecodeInvalidMessages(t *testing.T) {
	tests := []struct{ in, msg, id string }{
		{`"str"`, "jsonrpc: a message must be a JSON object", ""},
		{`[1]`, "jsonrpc: a message must be a JSON object", ""},
		{`null`, `jsonrpc: the "jsonrpc" member must be "2.0"`, ""},
		{`{"jsonrpc":"1.0","id":1,"method":"ping"}`, `jsonrpc: the "jsonrpc" member must be "2.0"`, "1"},
		{`{"jsonrpc":true,"id":1,"method":"ping"}`, `jsonrpc: member "jsonrpc" must not be a JSON bool`, "1"},
		{`{"jsonrpc":"2.0","id":1,"method":5}`, `jsonrpc: member "method" must not be a JSON number`, "1"},
		{`{"jsonrpc":"2.0","method":{},"id":"x"}`, `jsonrpc: member "method" must not be a JSON object`, `"x"`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}`, "jsonrpc: params must be an object", "1"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}`, "jsonrpc: params must be an object", "1"},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, "jsonrpc: id must be a string or an integer, not null", "null"},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, "jsonrpc: id must be a string or an integer", "1.5"},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, "jsonrpc: id must be a string or an integer, not null", "{}"},
		{`{"jsonrpc":"2.0","id":1,"method":"ping","result":{}}`, "jsonrpc: a request cannot carry a result or an error", "1"},
		{`{"jsonrpc":"2.0","id":1}`, `jsonrpc: a message needs a "method", or exactly one of "result" and "error"`, "1"},
		{`{"jsonrpc":"2.0","result":{}}`, "jsonrpc: a response needs an id", ""},
		{`{"jsonrpc":"2.0","id":1,"error":"x"}`, `jsonrpc: member "error" must not be a JSON string`, "1"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`, `jsonrpc: member "error.code" must not be a JSON number 1.5`, "1"},
		{`{"jsonrpc":"2.0","id":1,"error":{"code":1,"message":2}}`, `jsonrpc: member "error.message" must not be a JSON number`, "1"},
		{`{"method":5,"jsonrpc":1,"id":2}`, `jsonrpc: member "method" must not be a JSON number`, "2"},
	}
	for _, tt := range tests {
		m, r, err := decodeOne(t, tt.in, 64)
		if err != nil || r.Kind != KindInvalid || r.Err == nil || r.Err.Error() != tt.msg {
			t.Errorf("Decode(%s) = %v, %v, %v; want %q", tt.in, r.Kind, r.Err, err, tt.msg)
			continue
		}
		if string(m.ID) != tt.id {
			t.Errorf("Decode(%s): id %s, want %s", tt.in, m.ID, tt.id)
		}
	}
}

func TestDecodeKinds(t *testing.T) {
	tests := []struct {
		in   string
		kind Kind
		want Message
	}{
		{` {"jsonrpc":"2.0","id":1,"method":"ping"} `, KindRequest, Message{JSONRPC: "2.0", ID: []byte("1"), Method: "ping"}},
		{`{"method":"notifications/initialized","jsonrpc":"2.0","params":null}`, KindNotification,
			Message{JSONRPC: "2.0", Method: "notifications/initialized"}},
		{`{"jsonrpc":"2\u002e0","id":"a","method":"tools\/call","params":{ "name" : "x" }}`, KindRequest,
			Message{JSONRPC: "2.0", ID: []byte(`"a"`), Method: "tools/call", Params: []byte(`{ "name" : "x" }`)}},
		{`{"jsonrpc":"2.0","id":"ferry-1","result":{"action":"accept"}}`, KindResponse,
			Message{JSONRPC: "2.0", ID: []byte(`"ferry-1"`), Result: []byte(`{"action":"accept"}`)}},
		{`{"jsonrpc":"2.0","id":7,"result":null}`, KindResponse, Message{JSONRPC: "2.0", ID: []byte("7"), Result: []byte("null")}},
		{`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"nope","data":[1]}}`, KindResponse,
			Message{JSONRPC: "2.0", ID: []byte("2"), Error: &WireError{Code: -32601, Message: "nope", Data: []byte("[1]")}}},
		{`{"jsonrpc":"2.0","id":-0,"method":"a\u2028b","error":null}`, KindRequest, Message{JSONRPC: "2.0", ID: []byte("-0"), Method: "a\u2028b"}},
	}
	for _, tt := range tests {
		m, r, err := decodeOne(t, tt.in, 64)
		if err != nil || r.Err != nil || r.Kind != tt.kind {
			t.Errorf("Decode(%s) = %v, %v, %v", tt.in, r.Kind, r.Err, err)
			continue
		}
		if diff := cmp.Diff(&tt.want, m); diff != "" {
			t.Errorf("Decode(%s) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// Params members reach the Params in order, escapes decoded, and its
// first error is the Result's ParamsErr, the message decoding on.
func TestDecodeHandsOverParams(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":1,"params":{"name":"a" , "na\u006de":[1, 2],"x":{"y":null},"n":1},"method":"tools/call"}`
	rec := &recorder{fail: "x"}
	m := new(Message)
	r, err := testDecoder.Decode([]byte(in), m, rec)
	if err != nil || r.Kind != KindRequest || r.ParamsErr == nil || r.ParamsErr.Error() != "refused x" {
		t.Fatalf("Decode = %v, %v, %v", r.Kind, r.ParamsErr, err)
	}
	if want := []string{"name", "name", "x"}; !cmp.Equal(rec.names, want) {
		t.Errorf("names %q, want %q", rec.names, want)
	}
	if want := []string{`"a"`, `[1, 2]`, `{"y":null}`}; !cmp.Equal(rec.values, want) {
		t.Errorf("values %q, want %q", rec.values, want)
	}
	if m.Method != "tools/call" || string(m.Params) != `{"name":"a" , "na\u006de":[1, 2],"x":{"y":null},"n":1}` {
		t.Errorf("message %+v", m)
	}
}

// batchOf collects a batch's elements into messages and recorders.
type batchOf struct {
	msgs    []*Message
	recs    []*recorder
	results []Result
}

func (b *batchOf) Next() (*Message, Params) {
	m, rec := new(Message), new(recorder)
	b.msgs, b.recs = append(b.msgs, m), append(b.recs, rec)
	return m, rec
}

func (b *batchOf) Done(r Result) { b.results = append(b.results, r) }

func TestDecodeBatch(t *testing.T) {
	in := ` [ {"jsonrpc":"2.0","id":1,"method":"ping"}, 3, {"jsonrpc":"2.0","method":"n","params":{"a":1}} ] `
	var b batchOf
	err := testDecoder.DecodeBatch([]byte(in), &b)
	rs := b.results
	if err != nil || len(rs) != 3 || len(b.msgs) != 3 {
		t.Fatalf("DecodeBatch = %v, %v", rs, err)
	}
	if rs[0].Kind != KindRequest || rs[1].Kind != KindInvalid || rs[2].Kind != KindNotification {
		t.Errorf("kinds %v %v %v", rs[0].Kind, rs[1].Kind, rs[2].Kind)
	}
	if b.msgs[2].Method != "n" || len(b.recs[2].names) != 1 || b.recs[2].values[0] != "1" {
		t.Errorf("third element %+v, params %+v", b.msgs[2], b.recs[2])
	}
	deep := strings.Repeat("[", 7) + strings.Repeat("]", 7)
	for in, want := range map[string]error{
		`[]`:      ErrEmptyBatch,
		` [ ] `:   ErrEmptyBatch,
		`[1,]`:    ErrParse,
		`[1`:      ErrParse,
		`[1] [2]`: ErrParse,
		`{}`:      ErrParse,
		`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b","id":3}]`: ErrMember,
		`[{"a":` + deep + `}]`:       ErrTooDeep,
		`[{"a":` + deep[1:13] + `}]`: nil,
	} {
		dc := Decoder{MaxDepth: 8}
		err := dc.DecodeBatch([]byte(in), new(batchOf))
		if want == nil && err != nil || want != nil && !errors.Is(err, want) {
			t.Errorf("DecodeBatch(%s) = %v, want %v", in, err, want)
		}
	}
}

// A bound past JSON's own is JSON's: json.Valid refuses more than 10,000
// levels, and so does the decoder, as a syntax error.
func TestDecodeDepthPastJSONsOwnIsAParseError(t *testing.T) {
	in := `{"a":` + strings.Repeat("[", 10_000) + strings.Repeat("]", 10_000) + `}`
	if _, _, err := decodeOne(t, in, 20_000); !errors.Is(err, ErrParse) {
		t.Errorf("20,000 allowed, 10,001 deep: %v", err)
	}
	if _, _, err := decodeOne(t, in[5:len(in)-1], 20_000); err != nil {
		t.Errorf("20,000 allowed, 10,000 deep: %v", err)
	}
}

func TestDecodeDoesNotAllocate(t *testing.T) {
	msg := []byte(`{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"add","arguments":{"a":1,"b":[2,3]},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`)
	var m Message
	var p nopParams
	if n := testing.AllocsPerRun(100, func() {
		m = Message{}
		if r, err := testDecoder.Decode(msg, &m, &p); err != nil || r.Kind != KindRequest {
			t.Fatal(r, err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per decode", n)
	}
}

type nopParams struct{ n int }

func (p *nopParams) Member(_, _ []byte) error { p.n++; return nil }
