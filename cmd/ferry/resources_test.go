package main

import (
	"context"
	"log/slog"
	"testing"

	"github.com/ferry-mcp/ferry"
)

// ferry resources lists the resources and the resource templates, every
// page, as the server sent them, in each era.
func TestResources(t *testing.T) {
	url := httpServer(t, shopServer(nil), nil)
	for era, target := range eras(t, url) {
		t.Run(era, func(t *testing.T) {
			code, stdout, stderr := runFerry(t, withTarget("resources", target))
			if code != exitOK || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			var got struct {
				Resources []struct {
					URI, Name string
				} `json:"resources"`
				ResourceTemplates []struct {
					URITemplate string `json:"uriTemplate"`
					MimeType    string `json:"mimeType"`
				} `json:"resourceTemplates"`
			}
			decodeStdout(t, stdout, &got)
			if len(got.Resources) != 1 || got.Resources[0].URI != "shop://catalog" || got.Resources[0].Name != "catalog" {
				t.Errorf("resources %+v", got.Resources)
			}
			if len(got.ResourceTemplates) != 1 || got.ResourceTemplates[0].URITemplate != "shop://orders/{id}" || got.ResourceTemplates[0].MimeType != "application/json" {
				t.Errorf("templates %+v", got.ResourceTemplates)
			}
		})
	}
}

// A server without resources lists none: both lists are empty, not an
// error.
func TestResourcesNone(t *testing.T) {
	url := httpServer(t, toolsOnlyServer(), nil)
	code, stdout, stderr := runFerry(t, []string{"resources", url})
	if code != exitOK || stdout != "{\n  \"resources\": [],\n  \"resourceTemplates\": []\n}\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// toolsOnlyServer is a server with one tool and nothing else.
func toolsOnlyServer() *ferry.Server {
	srv := ferry.NewServer("tools-only", "1.0.0", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler)})
	ferry.AddTool(srv, ferry.Tool{Name: "ping", Description: "Answers pong, to check the server runs.", ReadOnly: true},
		func(context.Context, struct{}) (string, error) { return "pong", nil })
	return srv
}
