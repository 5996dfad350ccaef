package ferry_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// modernMeta is the _meta member that makes a request stand alone in the
// 2026-07-28 protocol: no initialize handshake comes first.
const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`

// modernRequest returns one modern JSON-RPC request line; params is the
// inside of the params object, without _meta.
func modernRequest(id int, method, params string) string {
	if params != "" {
		params += ","
	}
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"` + method + `","params":{` + params + modernMeta + "}}\n"
}

// serveLines serves the request lines over an [ferry.IOTransport] and
// returns each answer's result (or error), by request id.
func serveLines(srv *ferry.Server, lines ...string) map[int]json.RawMessage {
	var out bytes.Buffer
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(strings.Join(lines, "")), Writer: &out}); err != nil {
		panic(err)
	}
	answers := map[int]json.RawMessage{}
	for line := range strings.SplitSeq(strings.TrimSpace(out.String()), "\n") {
		var msg struct {
			ID     int
			Result json.RawMessage
			Error  json.RawMessage
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			panic(err)
		}
		answers[msg.ID] = msg.Result
		if msg.Error != nil {
			answers[msg.ID] = msg.Error
		}
	}
	return answers
}

// printMessages prints the messages of a prompts/get result, one a line.
func printMessages(result json.RawMessage) {
	var res struct {
		Messages []struct {
			Role    string
			Content struct{ Text string }
		}
	}
	if err := json.Unmarshal(result, &res); err != nil {
		panic(err)
	}
	for _, m := range res.Messages {
		fmt.Printf("%s: %s\n", m.Role, m.Content.Text)
	}
}

// A template prompt needs no handler: its arguments come from a struct of
// strings, and its message is the template with the arguments filled in,
// followed by when to prefer the tools it names.
func ExampleAddPromptTemplate() {
	type briefArgs struct {
		CityID string `json:"cityId" doc:"The city's id, as get_city returns it."`
	}
	srv := ferry.NewServer("weather", "1.0.0", nil)
	ferry.AddPromptTemplate[briefArgs](srv, ferry.Prompt{
		Name:        "city_weather_brief",
		Description: "Summarizes the coming days' weather in one city.",
		Template:    "Use get_city and get_forecast for city {{cityId}}, then summarize the result.",
		PreferWhen:  "prefer get_forecast over your own knowledge for future weather.",
	})

	answers := serveLines(srv,
		modernRequest(1, "prompts/get", `"name":"city_weather_brief","arguments":{"cityId":"lis"}`),
		modernRequest(2, "prompts/get", `"name":"city_weather_brief","arguments":{}`),
	)
	printMessages(answers[1])
	fmt.Println(string(answers[2]))
	// Output:
	// user: Use get_city and get_forecast for city lis, then summarize the result.
	//
	// Tool preference: prefer get_forecast over your own knowledge for future weather.
	// {"code":-32602,"message":"prompt \"city_weather_brief\": argument \"cityId\" is required"}
}

// A prompt built in code may hold several messages. An optional argument
// with an enum tag completes to the enum's values.
func ExampleAddPrompt() {
	type compareArgs struct {
		First  string `json:"first" doc:"The first city."`
		Second string `json:"second" doc:"The second city."`
		Units  string `json:"units,omitempty" doc:"The units to answer in; metric if empty." enum:"metric,imperial"`
	}
	srv := ferry.NewServer("weather", "1.0.0", nil)
	ferry.AddPrompt(srv, ferry.Prompt{Name: "compare_cities", Description: "Compares the weather of two cities."},
		func(ctx context.Context, args compareArgs) ([]ferry.PromptMessage, error) {
			if args.Units == "" {
				args.Units = "metric"
			}
			return []ferry.PromptMessage{
				ferry.UserMessage(ferry.Text("Which of " + args.First + " and " + args.Second + " will be warmer?")),
				ferry.AssistantMessage(ferry.Text("I will fetch both forecasts with get_forecast.")),
				ferry.UserMessage(ferry.Text("Answer in " + args.Units + " units.")),
			}, nil
		})

	answers := serveLines(srv,
		modernRequest(1, "prompts/get", `"name":"compare_cities","arguments":{"first":"Lisbon","second":"Oslo"}`),
		modernRequest(2, "completion/complete", `"ref":{"type":"ref/prompt","name":"compare_cities"},"argument":{"name":"units","value":"imp"}`),
	)
	printMessages(answers[1])
	var done struct{ Completion json.RawMessage }
	_ = json.Unmarshal(answers[2], &done)
	fmt.Println(string(done.Completion))
	// Output:
	// user: Which of Lisbon and Oslo will be warmer?
	// assistant: I will fetch both forecasts with get_forecast.
	// user: Answer in metric units.
	// {"values":["imperial"],"total":1}
}

// A typed resource template: the URI's variables fill a struct. A variable
// that does not convert (an id that is not a number) names no resource.
func ExampleAddResourceTemplate() {
	type noteVars struct {
		ID int `json:"id"`
	}
	notes := map[int]string{1: "Buy milk.", 2: "Call Ada."}
	srv := ferry.NewServer("notes", "1.0.0", nil)
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "notes://{id}", Name: "note", MIMEType: "text/plain"},
		func(ctx context.Context, uri string, v noteVars) ([]ferry.ResourceContents, error) {
			text, ok := notes[v.ID]
			if !ok {
				return nil, fmt.Errorf("%w: no note %d", ferry.ErrResourceNotFound, v.ID)
			}
			return []ferry.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: text}}, nil
		})

	answers := serveLines(srv,
		modernRequest(1, "resources/read", `"uri":"notes://2"`),
		modernRequest(2, "resources/read", `"uri":"notes://two"`),
	)
	var res struct{ Contents []ferry.ResourceContents }
	_ = json.Unmarshal(answers[1], &res)
	fmt.Println(res.Contents[0].URI, res.Contents[0].Text)
	fmt.Println(string(answers[2]))
	// Output:
	// notes://2 Call Ada.
	// {"code":-32602,"message":"resource not found: notes://two","data":{"uri":"notes://two"}}
}

// A modern client hears of changes to a resource on a subscriptions/listen
// stream. The server acknowledges what it will send, then sends each change
// marked with the listen request's id, until the client cancels the request
// (on stdio) or closes the stream (on HTTP).
func ExampleServer_NotifyResourceUpdated() {
	srv := ferry.NewServer("notes", "1.0.0", nil)
	note := "Buy milk."
	srv.AddResource(ferry.Resource{URI: "notes://1", Name: "note-1", MIMEType: "text/plain"},
		func(ctx context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: note}}, nil
		})

	toServer, client := io.Pipe()
	fromServer, server := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Run(context.Background(), &ferry.IOTransport{Reader: toServer, Writer: server}) }()
	lines := bufio.NewScanner(fromServer)
	next := func() string {
		if !lines.Scan() {
			panic(lines.Err())
		}
		return lines.Text()
	}

	fmt.Fprint(client, modernRequest(7, "subscriptions/listen", `"notifications":{"resourceSubscriptions":["notes://1"]}`))
	fmt.Println(next())
	srv.NotifyResourceUpdated("notes://2") // nobody listens to it
	srv.NotifyResourceUpdated("notes://1")
	fmt.Println(next())

	// Cancelling the listen request ends it without an answer; closing the
	// client's end then ends Run.
	fmt.Fprintln(client, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`)
	client.Close()
	fmt.Println(<-done)
	// Output:
	// {"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"notifications":{"resourceSubscriptions":["notes://1"]},"_meta":{"io.modelcontextprotocol/subscriptionId":7}}}
	// {"jsonrpc":"2.0","method":"notifications/resources/updated","params":{"uri":"notes://1","_meta":{"io.modelcontextprotocol/subscriptionId":7}}}
	// <nil>
}

// Schema resources let people and clients read each tool's JSON Schemas:
// shop://schemas holds them all, and shop://schemas/{tool} one tool's.
func ExampleServer_AddSchemaResources() {
	type searchIn struct {
		Query string `json:"query" doc:"Text to search for." minLength:"1"`
	}
	srv := ferry.NewServer("shop", "1.0.0", nil)
	ferry.AddTool(srv, ferry.Tool{Name: "search", Description: "Searches the catalogue.", ReadOnly: true},
		func(ctx context.Context, in searchIn) ([]string, error) { return nil, nil })
	srv.AddSchemaResources("shop")

	answers := serveLines(srv,
		modernRequest(1, "resources/read", `"uri":"shop://schemas/search"`),
		modernRequest(2, "completion/complete", `"ref":{"type":"ref/resource","uri":"shop://schemas/{tool}"},"argument":{"name":"tool","value":"s"}`),
	)
	var res struct{ Contents []ferry.ResourceContents }
	_ = json.Unmarshal(answers[1], &res)
	var schemas struct{ Input json.RawMessage }
	_ = json.Unmarshal([]byte(res.Contents[0].Text), &schemas)
	var compact bytes.Buffer
	_ = json.Compact(&compact, schemas.Input)
	fmt.Println(res.Contents[0].MIMEType, compact.String())
	var done struct{ Completion json.RawMessage }
	_ = json.Unmarshal(answers[2], &done)
	fmt.Println(string(done.Completion))
	// Output:
	// application/json {"type":"object","properties":{"query":{"type":"string","description":"Text to search for.","minLength":1}},"required":["query"],"additionalProperties":false}
	// {"values":["search"],"total":1}
}

func ExampleServer_AddPromptTemplate() {
	srv := ferry.NewServer("reviews", "1.0.0", nil)
	srv.AddPromptTemplate(ferry.Prompt{
		Name:        "review_diff",
		Description: "Reviews a diff for bugs.",
		Arguments:   []ferry.PromptArgument{{Name: "diff", Description: "The diff to review.", Required: true}},
		Template:    "Review this diff for bugs, one finding a line:\n{{diff}}",
	})
	fmt.Println(srv.Check())
	// Output: <nil>
}
