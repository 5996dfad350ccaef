package schema_test

import (
	"encoding/json"
	"fmt"

	"github.com/ferry-mcp/ferry/schema"
)

func ExampleFor() {
	type SearchIn struct {
		Query string `json:"query" doc:"Text to search for." minLength:"1"`
		Limit int    `json:"limit,omitzero" doc:"At most this many." minimum:"1" maximum:"50" default:"10"`
	}
	s, err := schema.For[SearchIn](nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := json.MarshalIndent(s, "", "  ")
	fmt.Println(string(data))
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "query": {
	//       "type": "string",
	//       "description": "Text to search for.",
	//       "minLength": 1
	//     },
	//     "limit": {
	//       "type": "integer",
	//       "description": "At most this many.",
	//       "minimum": 1,
	//       "maximum": 50,
	//       "default": 10
	//     }
	//   },
	//   "required": [
	//     "query"
	//   ],
	//   "additionalProperties": false
	// }
}

func ExampleFor_tagError() {
	type SearchIn struct {
		Limit int `json:"limit" minimum:"x"`
	}
	_, err := schema.For[SearchIn](nil)
	fmt.Println(err)
	// Output:
	// schema: schema_test.SearchIn.Limit: tag minimum "x" is not a number
}

func ExampleOptions_allowRecursion() {
	type Node struct {
		Name     string  `json:"name"`
		Children []*Node `json:"children,omitempty" doc:"Sub-nodes, unchecked."`
	}
	_, err := schema.For[Node](nil)
	fmt.Println(err)

	s, _ := schema.For[Node](&schema.Options{AllowRecursion: true})
	data, _ := json.Marshal(s.Properties["children"])
	fmt.Println(string(data))
	// Output:
	// schema: recursive type schema_test.Node at children[]
	// {"type":"array","description":"Sub-nodes, unchecked.","items":{"type":["object","null"]}}
}

func ExampleObject() {
	in := schema.Object(
		schema.Required("order_id", schema.ID("The order to cancel.")),
		schema.Optional("reason", schema.Choice("Why.", "duplicate", "fraud", "other")),
		schema.Optional("refund_on", schema.Date("When to refund.")),
	)
	data, _ := json.Marshal(in)
	fmt.Println(string(data))
	// Output:
	// {"type":"object","properties":{"order_id":{"type":"string","description":"The order to cancel.","minLength":1},"reason":{"type":"string","description":"Why.","enum":["duplicate","fraud","other"]},"refund_on":{"type":"string","description":"When to refund. Written yyyy-MM-dd.","format":"date"}},"required":["order_id"],"additionalProperties":false}
}

func ExampleSchema_Portable() {
	s := schema.Object(schema.Required("note", schema.Text(string(make([]byte, 2000)))))
	fmt.Println(s.Portable())
	// Output:
	// schema: description at note has 2000 characters, more than 1024
}

// PortableJSON checks a schema held as JSON, such as a tool's raw schema,
// and lists every problem.
func ExamplePortableJSON() {
	err := schema.PortableJSON([]byte(`{"type":"object","properties":{"address":{"$ref":"#/$defs/address"},"any":true}}`))
	fmt.Println(err)
	// Output:
	// schema: $ref at address, which some clients reject: inline the schema
	// schema: the schema true at any, which some clients reject: write an object schema
}
