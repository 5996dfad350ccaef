package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// exampleEnv runs commands with stdout as the example's output (os.Stdout
// when the example runs) and stderr dropped.
func exampleEnv() *env {
	return &env{stdin: strings.NewReader(""), stdout: os.Stdout, stderr: discard{}, getenv: func(string) string { return "" }}
}

// ferryHandler serves shopServer over Streamable HTTP.
func ferryHandler() http.Handler { return ferry.NewHTTPHandler(shopServer(nil), nil) }

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// ferry call prints the server's result; a tool's error result is
// printed too, and exits 1.
func Example_call() {
	ts := httptest.NewServer(ferryHandler())
	defer ts.Close()
	code := run(context.Background(), []string{"call", ts.URL + "/mcp", "get_order", `{"id": 7}`}, exampleEnv())
	fmt.Println("exit", code)
	// Output:
	// {
	//   "content": [
	//     {
	//       "type": "text",
	//       "text": "{\"id\":7,\"status\":\"shipped\"}"
	//     }
	//   ],
	//   "structuredContent": {
	//     "id": 7,
	//     "status": "shipped"
	//   },
	//   "resultType": "complete",
	//   "_meta": {
	//     "io.modelcontextprotocol/serverInfo": {
	//       "name": "shop",
	//       "version": "1.0.0"
	//     }
	//   }
	// }
	// exit 0
}

// ferry lint prints one line per problem, with its rule's id, and exits 1.
func Example_lint() {
	ts := httptest.NewServer(&rawServer{pages: map[string][][]string{"tools/list": {{
		`{"name":"get_order","description":"Gets an order.","inputSchema":{"type":"object","properties":{"id":{"type":"integer"}}}}`,
	}}}})
	defer ts.Close()
	code := run(context.Background(), []string{"lint", ts.URL}, exampleEnv())
	fmt.Println("exit", code)
	// Output:
	// tool get_order: description is 14 characters; say what it does and when to use it in at least 20 [description-short]
	// tool get_order: has no title (title or annotations.title) for clients to show [title-missing]
	// tool get_order: annotations leave readOnlyHint, destructiveHint, idempotentHint, openWorldHint unset; clients then assume the worst [hints-missing]
	// tool get_order: input properties id have no description [property-description-missing]
	// exit 1
}
