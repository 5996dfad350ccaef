package ferry_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// panicky is an Observer whose Start or End panics.
type panicky struct {
	inStart, inEnd bool
	mu             sync.Mutex
	ends           int
}

func (o *panicky) Start(ctx context.Context, _ *ferry.RequestInfo) context.Context {
	if o.inStart {
		panic("observer Start exploded")
	}
	return ctx
}

func (o *panicky) End(context.Context, *ferry.RequestInfo, ferry.RequestEnd) {
	o.mu.Lock()
	o.ends++
	o.mu.Unlock()
	if o.inEnd {
		panic("observer End exploded")
	}
}

// An observer that panics does not take the server down: on stdio a
// request's goroutine is the server's own, so a panic there used to end
// the process. The request is answered as if no observer were set.
func TestObserverPanicIsContained(t *testing.T) {
	for _, o := range []*panicky{{inStart: true}, {inEnd: true}} {
		name := "Start"
		if o.inEnd {
			name = "End"
		}
		t.Run(name+"/stdio", func(t *testing.T) {
			c := startStdio(t, observedServer(o))
			for i := range 2 {
				c.send(t, `{"jsonrpc":"2.0","id":`+string(rune('3'+i))+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
				if ans := c.next(t); !strings.Contains(ans, `"in "`) || strings.Contains(ans, `"error"`) {
					t.Fatalf("answer %d: %s", i, ans)
				}
			}
			c.close()
		})
		t.Run(name+"/http", func(t *testing.T) {
			ts := httptest.NewServer(ferry.NewHTTPHandler(observedServer(o), nil))
			defer ts.Close()
			body, hd := modernToolCall(`"m-1"`, "echo")
			if ans := openStream(t, "POST", ts.URL, "", body, hd...).next(); !strings.Contains(ans, `"in "`) || strings.Contains(ans, `"error"`) {
				t.Fatalf("answer: %s", ans)
			}
		})
	}
}

// A tool, prompt or method the server does not have is marked Unknown,
// so that an observer can keep the client's text out of its span names
// and metric series; a registered one is not.
func TestObserverMarksUnknownTargets(t *testing.T) {
	o := &recorder{}
	srv := observedServer(o)
	srv.AddPrompt(ferry.Prompt{Name: "greet", Description: "Greets."}, func(context.Context, *ferry.GetPromptRequest) (*ferry.PromptResult, error) {
		return &ferry.PromptResult{Messages: []ferry.PromptMessage{{Role: "user", Content: ferry.Text("hi")}}}, nil
	})
	c := startStdio(t, srv)
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":{"name":"echo","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"attacker-made-up-1234","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":12,"method":"prompts/get","params":{"name":"greet"}}`,
		`{"jsonrpc":"2.0","id":13,"method":"prompts/get","params":{"name":"nope-5678"}}`,
		`{"jsonrpc":"2.0","id":14,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":15,"method":"made/up/9999"}`,
	} {
		c.send(t, line)
		c.next(t)
	}
	c.close()
	want := map[string]bool{"10": false, "11": true, "12": false, "13": true, "14": false, "15": true}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, s := range o.seen {
		if w, ok := want[s.info.ID]; ok {
			if s.info.Unknown != w {
				t.Errorf("request %s (%s %q): Unknown = %v, want %v", s.info.ID, s.info.Method, s.info.Name, s.info.Unknown, w)
			}
			delete(want, s.info.ID)
		}
	}
	if len(want) != 0 {
		t.Errorf("not observed: %v", want)
	}
}
