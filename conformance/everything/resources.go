package main

import (
	"context"
	"fmt"

	"github.com/ferry-mcp/ferry"
)

const watched = "test://watched-resource"

// templateVars are the variables of test://template/{id}/data.
type templateVars struct {
	ID string `json:"id" suggest:"123,456,789"`
}

// addResources adds the resources; test://watched-resource is f's, so a
// touch on one replica changes what every replica reads.
func addResources(srv *ferry.Server, f *fixture) {
	srv.AddResource(ferry.Resource{URI: "test://static-text", Name: "static-text", Description: "A fixed text resource.", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}}, nil
		})
	srv.AddResource(ferry.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A fixed binary resource.", MIMEType: "image/png", Size: int64(len(pngPixel))},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "image/png", Blob: pngPixel}}, nil
		})
	srv.AddResource(ferry.Resource{URI: watched, Name: "watched-resource", Description: "A resource clients may subscribe to; touch_watched changes it.", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: fmt.Sprintf("Watched resource, version %d.", f.version.Load())}}, nil
		})
	ferry.AddResourceTemplate(srv, ferry.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data",
		Description: "Data for an id.", MIMEType: "application/json"},
		func(_ context.Context, uri string, v templateVars) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: uri, MIMEType: "application/json",
				Text: `{"id":"` + v.ID + `","templateTest":true,"data":"Data for ID: ` + v.ID + `"}`}}, nil
		})
	srv.AddSchemaResources("ferry")
	srv.AddTool(ferry.Tool{Name: "touch_watched", Description: "Changes test://watched-resource, so subscribers are told.",
		Idempotent: false, Additive: true, ClosedWorld: true},
		func(context.Context, *ferry.CallToolRequest) (*ferry.ToolResult, error) {
			f.version.Add(1)
			srv.NotifyResourceUpdated(watched)
			return text("touched " + watched), nil
		})
}
