// Command prompts serves prompts over stdio, next to the two tools they
// steer the model towards:
//
//   - city_weather_brief is a template prompt: its arguments come from a
//     struct of strings and its one user message from a template, followed
//     by when to prefer the tools it names. It needs no handler. Its
//     optional activity argument fills a section of the template, text
//     that appears only when the argument is given.
//   - compare_cities builds several messages in code, and its optional
//     units argument completes to the values of its enum tag.
//
// Run it with:
//
//	go run ./examples/prompts
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// City is a city as get_city returns it.
type City struct {
	ID      string `json:"id" doc:"The city's id, as get_forecast takes it."`
	Name    string `json:"name"`
	Country string `json:"country"`
}

// Day is one day of a forecast.
type Day struct {
	Date        string `json:"date" format:"date"`
	Summary     string `json:"summary"`
	HighCelsius int    `json:"highCelsius"`
	LowCelsius  int    `json:"lowCelsius"`
}

// Forecast is the result of get_forecast.
type Forecast struct {
	CityID string `json:"cityId"`
	Days   []Day  `json:"days,omitzero" required:"true"` // never nil: an array, not ["array", "null"]
}

var cities = []City{
	{ID: "lis", Name: "Lisbon", Country: "PT"},
	{ID: "osl", Name: "Oslo", Country: "NO"},
}

var forecasts = map[string][]Day{
	"lis": {{"2026-05-01", "sunny", 24, 15}, {"2026-05-02", "light wind", 22, 14}},
	"osl": {{"2026-05-01", "showers", 11, 4}, {"2026-05-02", "overcast", 12, 5}},
}

// BriefArgs are the arguments of city_weather_brief.
type BriefArgs struct {
	CityID   string `json:"cityId" doc:"The city's id, as get_city returns it."`
	Activity string `json:"activity,omitempty" doc:"What the user plans to do outside, such as cycling."`
}

// CompareArgs are the arguments of compare_cities. Units is optional and
// completes to its enum's values.
type CompareArgs struct {
	First  string `json:"first" doc:"The name of the first city."`
	Second string `json:"second" doc:"The name of the second city."`
	Units  string `json:"units,omitempty" doc:"The units to answer in; metric if empty." enum:"metric,imperial"`
}

func main() {
	srv := ferry.NewServer("weather", "1.0.0", &ferry.ServerOptions{
		Logger: slog.New(slog.NewTextHandler(os.Stderr, nil)),
	})
	addTools(srv)

	ferry.AddPromptTemplate[BriefArgs](srv, ferry.Prompt{
		Name:        "city_weather_brief",
		Title:       "City weather brief",
		Description: "Summarizes the coming days' weather in one city.",
		// Without an activity the sentence ends after "the result": the
		// section holds its own leading space and clause.
		Template:   "Use get_city and get_forecast for city {{cityId}}, then summarize the result{{#activity}} for {{activity}}{{/activity}}.",
		PreferWhen: "prefer get_forecast over your own knowledge for anything about future weather.",
	})
	ferry.AddPrompt(srv, ferry.Prompt{
		Name:        "compare_cities",
		Title:       "Compare two cities",
		Description: "Compares the weather of two cities, day by day.",
	}, func(ctx context.Context, args CompareArgs) ([]ferry.PromptMessage, error) {
		units := args.Units
		if units == "" {
			units = "metric"
		}
		return []ferry.PromptMessage{
			ferry.UserMessage(ferry.Text(fmt.Sprintf("Which of %s and %s will have the better weather in the coming days?", args.First, args.Second))),
			ferry.AssistantMessage(ferry.Text("I will look both cities up with get_city, then fetch each forecast with get_forecast.")),
			ferry.UserMessage(ferry.Text("Answer in " + units + " units, with one line per day and a one-sentence verdict.")),
		}, nil
	})

	if err := srv.Run(context.Background(), &ferry.StdioTransport{}); err != nil {
		slog.Error("serve", "err", err)
		os.Exit(1)
	}
}

// addTools registers get_city and get_forecast, which serve canned data.
func addTools(srv *ferry.Server) {
	ferry.AddTool(srv, ferry.Tool{Name: "get_city", Title: "Find a city", Description: "Finds a city by name and returns its id.", ReadOnly: true, ClosedWorld: true},
		func(ctx context.Context, in struct {
			Name string `json:"name" doc:"The city's name, such as Lisbon." minLength:"1"`
		}) (City, error) {
			for _, c := range cities {
				if strings.EqualFold(c.Name, in.Name) {
					return c, nil
				}
			}
			return City{}, ferry.NotFound("no city named " + in.Name + "; this service knows Lisbon and Oslo")
		})
	ferry.AddTool(srv, ferry.Tool{Name: "get_forecast", Title: "Get a forecast", Description: "Returns the forecast of a city for the coming days.", ReadOnly: true, ClosedWorld: true},
		func(ctx context.Context, in struct {
			CityID string `json:"cityId" doc:"The city's id, as get_city returns it." minLength:"1"`
		}) (Forecast, error) {
			days, ok := forecasts[in.CityID]
			if !ok {
				return Forecast{}, ferry.NotFound("no city " + in.CityID + "; use get_city to find its id")
			}
			return Forecast{CityID: in.CityID, Days: days}, nil
		})
}
