package route_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/route"
)

// On a server that confirms, a route tool bound to DELETE, PUT, PATCH or
// POST asks a person first, saying the request it sends, and the route
// is served only on accept; a GET tool and an Additive one do not ask.
func TestBindingConfirm(t *testing.T) {
	var served atomic.Int64
	mux := http.NewServeMux()
	for _, p := range []string{"GET /notes/{id}", "DELETE /notes/{id}", "PUT /notes/{id}", "PATCH /notes/{id}", "POST /notes"} {
		mux.HandleFunc(p, func(w http.ResponseWriter, _ *http.Request) {
			served.Add(1)
			w.WriteHeader(http.StatusNoContent)
		})
	}
	srv := ferry.NewServer("notes", "1", &ferry.ServerOptions{Logger: slog.New(slog.DiscardHandler), Confirm: true})
	b := route.New(srv, mux, nil)
	type noteID struct {
		ID string `json:"id" in:"path" description:"The note's id."`
	}
	route.AddTool[noteID](b, ferry.Tool{Name: "get_note", Description: "Gets a note by its id."}, "GET /notes/{id}")
	route.AddTool[noteID](b, ferry.Tool{Name: "delete_note", Description: "Deletes a note for good."}, "DELETE /notes/{id}")
	route.AddTool[noteID](b, ferry.Tool{Name: "put_note", Description: "Replaces a note whole."}, "PUT /notes/{id}")
	route.AddTool[noteID](b, ferry.Tool{Name: "patch_note", Description: "Changes some fields of a note."}, "PATCH /notes/{id}")
	route.AddTool[struct{}](b, ferry.Tool{Name: "post_note", Description: "Adds a note to the list."}, "POST /notes")
	route.AddTool[struct{}](b, ferry.Tool{Name: "post_note_additive", Description: "Adds a note, overwriting none.", Additive: true}, "POST /notes")
	var asked []string
	action := "decline"
	c := ferrytest.NewClient(t, srv, &ferrytest.Options{Elicit: func(_ context.Context, p *client.ElicitParams) (*client.ElicitResult, error) {
		asked = append(asked, p.Message)
		return &client.ElicitResult{Action: action}, nil
	}})
	for _, tt := range []struct{ tool, sent string }{
		{"delete_note", "DELETE /notes/{id}"}, {"put_note", "PUT /notes/{id}"}, {"patch_note", "PATCH /notes/{id}"}, {"post_note", "POST /notes"},
	} {
		asked = nil
		args := map[string]any{"id": "7"}
		if tt.tool == "post_note" {
			args = map[string]any{}
		}
		res := c.CallTool(t.Context(), tt.tool, args)
		if !res.IsError || !strings.HasPrefix(res.Text(), "declined: ") || served.Load() != 0 {
			t.Errorf("%s declined: %q, %d routes served", tt.tool, res.Text(), served.Load())
		}
		if want := "\nSends " + tt.sent + " to the service."; len(asked) != 1 || !strings.HasSuffix(asked[0], want) {
			t.Errorf("%s asked %q, want one question ending %q", tt.tool, asked, want)
		}
	}
	action = "accept"
	if res := c.CallTool(t.Context(), "delete_note", map[string]any{"id": "7"}); res.IsError || served.Load() != 1 {
		t.Errorf("delete_note accepted: %q, %d routes served", res.Text(), served.Load())
	}
	asked = nil
	c.CallTool(t.Context(), "get_note", map[string]any{"id": "7"})
	c.CallTool(t.Context(), "post_note_additive", map[string]any{})
	if len(asked) != 0 || served.Load() != 3 {
		t.Errorf("a GET and an Additive POST asked %q; %d routes served", asked, served.Load())
	}
}
