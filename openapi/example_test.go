package openapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/openapi"
)

// A service's own OpenAPI document binds its operations to its handler:
// the tool calls the route in process, and the service's problem
// documents are the model's refusals.
func ExampleBind() {
	const doc = `
openapi: 3.1.0
info: {title: Orders, version: "1"}
servers: [{url: /api}]
paths:
  /orders/{id}:
    get:
      operationId: getOrder
      summary: Fetches one order by its id.
      parameters:
        - {name: id, in: path, required: true, schema: {type: string}, description: The order's id.}
      responses:
        "200": {description: The order., content: {application/json: {schema: {type: object}}}}
`
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/orders/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") != "A-1" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]string{"detail": "No order " + r.PathValue("id") + "."})
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprint(w, `{"id":"A-1","status":"open"}`)
	})

	ctx := context.Background()
	d, err := openapi.Parse([]byte(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := ferry.NewServer("orders", "1.0.0", nil)
	if _, err := openapi.Bind(srv, mux, d, &openapi.Options{ClosedWorld: true}, nil); err != nil {
		fmt.Println(err)
		return
	}
	c, err := client.DialHandler(ctx, ferry.NewHTTPHandler(srv, nil), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	for _, id := range []string{"A-1", "B-2"} {
		res, err := c.CallTool(ctx, "get_order", map[string]any{"id": id})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Text())
	}
	// Output:
	// {"id":"A-1","status":"open"}
	// not-found: No order B-2.
}

// An operation's tool is in the group of its first tag.
func ExampleTagGroup() {
	fmt.Println(openapi.TagGroup("pets"))
	fmt.Println(openapi.TagGroup("Pet Store"))
	fmt.Println(openapi.TagGroup("!!!") == "")
	// Output:
	// pets
	// pet_store
	// true
}
