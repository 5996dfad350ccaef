package main

import (
	"context"

	"github.com/ferry-mcp/ferry"
)

func addResources(srv *ferry.Server) {
	srv.AddResource(ferry.Resource{URI: "test://static-text", Name: "static-text", Description: "A fixed text resource.", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "This is the content of the static text resource."}}, nil
		})
	srv.AddResource(ferry.Resource{URI: "test://static-binary", Name: "static-binary", Description: "A fixed binary resource.", MIMEType: "image/png"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "image/png", Blob: pngPixel}}, nil
		})
	srv.AddResource(ferry.Resource{URI: "test://watched-resource", Name: "watched-resource", Description: "A resource clients may subscribe to.", MIMEType: "text/plain"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "text/plain", Text: "Watched resource content."}}, nil
		})
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "test://template/{id}/data", Name: "template-data",
		Description: "Data for an id.", MIMEType: "application/json"},
		func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
			return []ferry.ResourceContents{{URI: req.URI, MIMEType: "application/json",
				Text: `{"id":"` + req.Vars["id"] + `","templateTest":true,"data":"Data for ID: ` + req.Vars["id"] + `"}`}}, nil
		})
}
