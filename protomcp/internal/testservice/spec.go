package testservice

import (
	"fmt"

	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/protoschema"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Spec returns the test service's spec as the generator would write it,
// with the schemas of package protoschema.
func Spec(sd protoreflect.ServiceDescriptor) (*protomcp.ServiceSpec, error) {
	spec := &protomcp.ServiceSpec{Service: sd.FullName(), Prompts: []protomcp.PromptSpec{{
		Name:        "order_help",
		Description: "Helps a customer order an item.",
		Template:    "Help {{customer}} order the item {{sku}}.",
		PreferWhen:  "the customer names an item",
		Arguments: []protomcp.PromptArgument{
			{Name: "customer", Description: "The customer's name.", Required: true},
			{Name: "sku", Description: "The item's SKU."},
		},
	}}}
	yes := true
	for _, t := range []struct {
		method protoreflect.Name
		name   string
		desc   string
		ro     bool
		idem   bool
		destr  *bool
	}{
		{"GetItem", "get_item", "Returns an item by its SKU.", true, true, nil},
		{"PlaceOrder", "place_order", "Places an order for some lines.", false, false, &yes},
		{"Fail", "fail", "Answers with the Connect error it is asked for.", false, true, nil},
	} {
		md := sd.Methods().ByName(t.method)
		if md == nil {
			return nil, fmt.Errorf("testservice: no method %s", t.method)
		}
		in, err := protoschema.Input(md.Input())
		if err != nil {
			return nil, err
		}
		out, err := protoschema.Output(md.Output())
		if err != nil {
			return nil, err
		}
		spec.Tools = append(spec.Tools, protomcp.ToolSpec{Method: t.method, Name: t.name, Description: t.desc,
			InputSchema: in, OutputSchema: out, ReadOnly: t.ro, Idempotent: t.idem, Destructive: t.destr})
	}
	return spec, nil
}
