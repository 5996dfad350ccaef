package main

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
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

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"Lisbon","days":1},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "get_forecast")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	var msg struct {
		Result struct {
			StructuredContent json.RawMessage
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&msg); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s\n", msg.Result.StructuredContent)
	// Output:
	// {"city":"Lisbon","days":[{"date":"2026-12-01","highC":12,"lowC":5,"sky":"SKY_CLOUDY"}]}
}
