package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/ferry-mcp/ferry/client"
)

// ExampleNewHandler serves the weather service and calls its generated
// get_forecast tool over MCP, as a client would.
func ExampleNewHandler() {
	h, err := NewHandler(newWeather(), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		fmt.Println(err)
		return
	}
	ts := httptest.NewServer(h)
	defer ts.Close()

	ctx := context.Background()
	c, err := client.DialHTTP(ctx, ts.URL+"/mcp", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	res, err := c.CallTool(ctx, "get_forecast", map[string]any{"city": "Lisbon", "days": 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", res.StructuredContent)
	// Output:
	// {"city":"Lisbon","days":[{"date":"2026-12-01","highC":12,"lowC":5,"sky":"SKY_CLOUDY"}]}
}
