package client

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// TestEncodeObjectMatchesMarshal: the hand-written request encoding must
// hold what json.Marshal writes, for names that need escaping too, or a
// server could see another request than the one meant. (It writes <, >
// and & as they are, as the server's encoder does, where json.Marshal
// escapes them: the same value.)
func TestEncodeObjectMatchesMarshal(t *testing.T) {
	members := map[string]json.RawMessage{}
	for _, k := range []string{"name", "arguments", "_meta", "a\"b", "c\\d", "<tag>&", "é", "\x01", "\u2028", "", "Z"} {
		members[k], _ = json.Marshal(k + " value")
	}
	members["empty"] = nil
	want, err := json.Marshal(members)
	if err != nil {
		t.Fatal(err)
	}
	got := encodeObject(members)
	var gotValue, wantValue map[string]any
	if err := json.Unmarshal(got, &gotValue); err != nil {
		t.Fatalf("encodeObject wrote %s: %v", got, err)
	}
	_ = json.Unmarshal(want, &wantValue)
	if !reflect.DeepEqual(gotValue, wantValue) || len(got) > len(want) {
		t.Fatalf("encodeObject\n got %s\nwant %s", got, want)
	}
	for _, method := range []string{"tools/call", "x\"y", "ü"} {
		params := encodeObject(members)
		m, kind, err := jsonrpc.Decode(encodeRequest(7, method, params))
		if err != nil || kind != jsonrpc.KindRequest {
			t.Fatalf("encodeRequest(%q): %v", method, err)
		}
		if m.JSONRPC != "2.0" || string(m.ID) != "7" || m.Method != method || string(m.Params) != string(params) {
			t.Fatalf("encodeRequest(%q) decodes as %+v", method, m)
		}
	}
}

// TestAsksForInput: the shortcut that skips decoding must never miss an
// input_required result, however its JSON is spelt.
func TestAsksForInput(t *testing.T) {
	for _, tc := range []struct {
		res  string
		want bool
		err  bool
	}{
		{res: `{"content":[],"resultType":"complete"}`},
		{res: `{"content":[{"type":"text","text":"input_required"}]}`},
		{res: `{"resultType":"input_required","inputRequests":{}}`, want: true},
		{res: ` { "resultType" : "input_required" }`, want: true},
		{res: `{"resultType":"input\u005frequired"}`, want: true},
		{res: `{"result\u0054ype":"input_required"}`, want: true},
		{res: `{"ResultType":"input_required"}`}, // member names are exact
		{res: `{"text":"\u00e9"}`},
		{res: `[]`, err: true},
		{res: `"input_required"`, err: true},
		{res: ``, err: true},
	} {
		got, err := asksForInput(json.RawMessage(tc.res))
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("asksForInput(%s) = %v, %v; want %v, error %v", tc.res, got, err, tc.want, tc.err)
		}
	}
}
