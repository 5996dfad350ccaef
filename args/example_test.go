package args_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-mcp/ferry/args"
)

func Example() {
	raw := json.RawMessage(`{"period": "Q1", "from": "2026-01-01", "limit": "20", "tags": "north, south"}`)
	a, err := args.Parse(raw)
	if err != nil {
		fmt.Println(err)
		return
	}
	period, err1 := args.RequiredText(a, "period")
	from, err2 := args.Date(a, "from")
	limit, _, err3 := args.OptionalInteger(a, "limit")
	tags, err4 := args.List(a, "tags")
	if err := errors.Join(err1, err2, err3, err4); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(period, from.Format("2 Jan 2006"), limit, tags)
	// Output: Q1 1 Jan 2026 20 [north south]
}

func Example_errors() {
	a, _ := args.Parse(json.RawMessage(`{"from": "March 2026", "limit": 1.5, "colour": "red"}`))
	_, err1 := args.RequiredText(a, "period")
	_, err2 := args.Date(a, "from")
	_, _, err3 := args.OptionalInteger(a, "limit")
	err4 := args.Only(a, "period", "from", "limit")
	fmt.Println(errors.Join(err1, err2, err3, err4))
	// Output:
	// period: is required
	// from: expected a date written yyyy-MM-dd, got "March 2026"
	// limit: expected an integer, got 1.5
	// colour: is not allowed: unknown property "colour"; known properties: period, from, limit
}
