package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
	"github.com/google/go-cmp/cmp"
)

// This file holds the decoder to what Ferry did before it: checkShape,
// then encoding/json (decodeWith, and splitBatch for a batch), kept in oldpath_test.go.

// jsonParams is a Params that reads name and arguments as encoding/json
// reads them into oldParams: names matched regardless of case, the last
// one winning, null leaving a string unset.
type jsonParams struct {
	name    string
	args    json.RawMessage
	members []string // "name=value" of every member, for the walk's check
}

type oldParams struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"arguments"`
}

func (p *jsonParams) Member(name, value []byte) error {
	p.members = append(p.members, string(name)+"="+string(value))
	switch {
	case bytes.EqualFold(name, []byte("name")):
		switch jsontext.TypeOf(value) {
		case jsontext.String:
			p.name = jsontext.Unquote(value)
		case jsontext.Null:
		default:
			return fmt.Errorf("name must not be a JSON %s", jsontext.TypeOf(value))
		}
	case bytes.EqualFold(name, []byte("arguments")):
		p.args = value
	}
	return nil
}

// decoded is one message as a decoder saw it.
type decoded struct {
	m          *Message
	kind       Kind
	err, perr  error
	name, args string
}

// oldDecode decodes a message as Ferry did before.
func oldDecode(data []byte, maxDepth int) (decoded, error) {
	if err := checkShape(data, maxDepth); err != nil {
		return decoded{}, err
	}
	return oldMessage(data)
}

func oldMessage(data []byte) (decoded, error) {
	var p oldParams
	m, k, err, perr := decodeWith(data, &p)
	if errors.Is(err, ErrParse) {
		return decoded{}, err
	}
	return decoded{m: m, kind: k, err: err, perr: perr, name: p.Name, args: string(p.Args)}, nil
}

func newDecode(data []byte, maxDepth int) (decoded, *jsonParams, error) {
	dc := Decoder{MaxDepth: maxDepth, Methods: []string{"ping"}}
	m, p := new(Message), new(jsonParams)
	r, err := dc.Decode(data, m, p)
	return decoded{m: m, kind: r.Kind, err: r.Err, perr: r.ParamsErr, name: p.name, args: string(p.args)}, p, err
}

// abortClass names the class of a refusal of the whole input.
func abortClass(err error) string {
	for _, e := range []error{ErrParse, ErrTooDeep, ErrMember, ErrEmptyBatch} {
		if errors.Is(err, e) {
			return e.Error()
		}
	}
	if err != nil {
		return "other: " + err.Error()
	}
	return "none"
}

// compareAborts checks that the decoder refuses an input whole exactly
// when the old path did, for the same reason; on input that is not JSON
// it may say so where the old shape check, which ran first and did not
// read JSON, saw a repeated member or deep nesting further on.
func compareAborts(t *testing.T, data []byte, oldErr, newErr error) {
	t.Helper()
	oldC, newC := abortClass(oldErr), abortClass(newErr)
	if oldC == newC || !json.Valid(data) && newC == abortClass(ErrParse) && oldErr != nil {
		return
	}
	t.Fatalf("%q: the old path refuses it with %v, the decoder with %v", data, oldErr, newErr)
}

// compareMessages checks one message both paths decoded: see
// FuzzDecodeAgainstEncodingJSON.
func compareMessages(t *testing.T, data []byte, o, n decoded) {
	t.Helper()
	switch {
	case o.err != nil && n.err == nil:
		t.Fatalf("%q: the old path says %v; the decoder accepts it", data, o.err)
	case o.err != nil && o.perr == nil && o.err.Error() != n.err.Error():
		t.Fatalf("%q: the old path says %v; the decoder %v", data, o.err, n.err)
	case o.err == nil && o.perr != nil && n.err == nil && n.perr == nil:
		t.Fatalf("%q: the old path refuses the params (%v); the decoder accepts them", data, o.perr)
	case o.err == nil && o.perr == nil && (n.err != nil || n.perr != nil):
		t.Fatalf("%q: the old path accepts it; the decoder says %v, %v", data, n.err, n.perr)
	case n.err != nil && o.err == nil && o.perr == nil:
		t.Fatalf("%q: the decoder says %v; the old path accepts it", data, n.err)
	}
	if o.err != nil || o.perr != nil {
		return
	}
	if o.kind != n.kind || o.name != n.name || o.args != n.args {
		t.Fatalf("%q: old kind %v, params %q %s; decoder %v, %q %s", data, o.kind, o.name, o.args, n.kind, n.name, n.args)
	}
	want, got := *o.m, *n.m
	got.Params = nil // decodeWith decodes params into its target only
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("%q (-old +decoder):\n%s", data, diff)
	}
}

// paramsMembers lists the members of the params object of a valid
// message as encoding/json's tokenizer reads them.
func paramsMembers(m *Message) []string {
	if len(m.Params) == 0 || m.Params[0] != '{' {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(m.Params))
	_, _ = dec.Token()
	var out []string
	for dec.More() {
		tok, _ := dec.Token()
		var v json.RawMessage
		_ = dec.Decode(&v)
		out = append(out, tok.(string)+"="+string(v))
	}
	return out
}

// checkMembers checks that Params saw the members of params as
// encoding/json's tokenizer does, where the names are UTF-8: all of them,
// or, when Params refused one (perr), those up to that one.
func checkMembers(t *testing.T, data []byte, m *Message, p *jsonParams, perr error) {
	t.Helper()
	if !utf8.Valid(data) || p.members == nil && m.Params == nil {
		return
	}
	want := paramsMembers(m)
	if perr != nil && len(p.members) <= len(want) {
		want = want[:len(p.members)]
	}
	if !cmp.Equal(want, p.members) && !(len(want) == 0 && len(p.members) == 0) {
		t.Fatalf("%q: members %q, the tokenizer reads %q", data, p.members, want)
	}
}

// FuzzDecodeAgainstEncodingJSON holds the decoder to what Ferry did
// before it, on any input:
//   - it refuses the input whole (not JSON, too deep, a member repeated
//     or a case variant of one) exactly when checkShape or encoding/json
//     did, for the same reason;
//   - a message the old path refused (err) it refuses, with the same
//     words; one whose params did not decode it refuses, as invalid
//     params or as an invalid message (encoding/json kept only its first
//     error and left a member of the wrong type after it unset);
//   - a message the old path accepted, it accepts with the same kind,
//     jsonrpc, id, method, result, error and params name and arguments,
//     and hands Params the members of params encoding/json's tokenizer
//     reads.
func FuzzDecodeAgainstEncodingJSON(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add([]byte(s), uint8(8))
	}
	f.Fuzz(func(t *testing.T, data []byte, limit uint8) {
		maxDepth := 1 + int(limit)%12
		if IsBatch(data) {
			compareBatch(t, data, maxDepth)
			return
		}
		o, oerr := oldDecode(data, maxDepth)
		n, p, nerr := newDecode(data, maxDepth)
		compareAborts(t, data, oerr, nerr)
		if oerr != nil {
			return
		}
		compareMessages(t, data, o, n)
		checkMembers(t, data, n.m, p, n.perr)
	})
}

// compareBatch holds DecodeBatch to checkShape, splitBatch and decodeWith
// of each element.
func compareBatch(t *testing.T, data []byte, maxDepth int) {
	var olds []decoded
	oerr := checkShape(data, maxDepth)
	if oerr == nil {
		var items []json.RawMessage
		if items, oerr = splitBatch(data); oerr != nil && !errors.Is(oerr, ErrParse) {
			oerr = ErrEmptyBatch
		}
		for _, it := range items {
			o, _ := oldMessage(it)
			olds = append(olds, o)
		}
	}
	dc := Decoder{MaxDepth: maxDepth}
	b := &fuzzBatch{}
	nerr := dc.DecodeBatch(data, b)
	rs, news, params := b.results, b.news, b.params
	compareAborts(t, data, oerr, nerr)
	if oerr != nil {
		return
	}
	if len(rs) != len(olds) {
		t.Fatalf("%q: %d elements, splitBatch says %d", data, len(rs), len(olds))
	}
	for i, r := range rs {
		n := news[i]
		n.kind, n.err, n.perr, n.name, n.args = r.Kind, r.Err, r.ParamsErr, params[i].name, string(params[i].args)
		compareMessages(t, data, olds[i], n)
	}
}

// fuzzBatch collects a batch's elements for compareBatch.
type fuzzBatch struct {
	news    []decoded
	params  []*jsonParams
	results []Result
}

func (b *fuzzBatch) Next() (*Message, Params) {
	b.news = append(b.news, decoded{m: new(Message)})
	b.params = append(b.params, new(jsonParams))
	return b.news[len(b.news)-1].m, b.params[len(b.params)-1]
}

func (b *fuzzBatch) Done(r Result) { b.results = append(b.results, r) }

// fuzzSeeds are the seeds of the decoder's fuzzers: the messages of the
// other fuzzers and conformance-style messages of every kind.
func fuzzSeeds() []string {
	seeds := append([]string{}, decodeSeeds...)
	return append(seeds,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"f","version":"1"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":1}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"echo","arguments":{"message":"m"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`,
		`{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"confirm","inputResponses":{"q1":{"action":"accept"}},"requestState":"e30.AA"}}`,
		`{"jsonrpc":"2.0","id":8,"method":"completion/complete","params":{"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":"a"}}}`,
		`[{"jsonrpc":"2.0","id":16,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"NAME":"a","name":"b","Arguments":[1],"na\u006de":null}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":1}}`,
		`{"jsonrpc":"2.0","params":{"name":1},"method":5,"id":1,"result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"paramſ":{}}`,
		`{"jsonrpc":"2.0","id":1,"\u006dethod":"ping"}`,
		`{"a":[[[[[[[[[[[[1]]]]]]]]]]]]}`,
		`[{"a":[[[[[[[[[[[[1]]]]]]]]]]]]}]`,
		`[[],{},1,null,"x",{"jsonrpc":"2.0","id":1,"result":null}]`,
		`{"jsonrpc":"2.0","id":1,"error":{"code":1.5,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":1,"error":{"CODE":7,"code":8,"message":"m","data":{"x":[]}}}`,
		"{\"jsonrpc\":\"2.0\",\"id\":\"\\ud800\",\"method\":\"\\ud83d\\ude00\xff\"}",
		`{"id":1,"id":2,,}`,
		`[]`, `[1,]`, ` [ ] `,
	)
}
