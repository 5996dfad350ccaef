package route_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
)

// A problem document's field errors name the tool's arguments, not the
// parts of the request the binding built from them: body.reason is the
// argument reason, path.id the argument that filled {id}, query.notify
// and header.Idempotency-Key the arguments sent there. A location that
// names no argument (another body member, a header the binding sets, a
// cookie, a bare name) is quoted as the service wrote it.
func TestProblemLocationsNameTheArguments(t *testing.T) {
	m := newMCPServer(t)
	mux := http.NewServeMux()
	// The routes answer 422 with the errors the request's body or query
	// lists, one location per line of "locations".
	problem := func(w http.ResponseWriter, locations string) {
		type fieldError struct {
			Message  string `json:"message"`
			Location string `json:"location,omitempty"`
			Pointer  string `json:"pointer,omitempty"`
		}
		var errs []fieldError
		for _, loc := range strings.Split(locations, "\n") {
			if strings.HasPrefix(loc, "/") {
				errs = append(errs, fieldError{Message: "is wrong", Pointer: loc})
			} else {
				errs = append(errs, fieldError{Message: "is wrong", Location: loc})
			}
		}
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		_ = json.NewEncoder(w).Encode(map[string]any{"detail": "Bad order.", "errors": errs})
	}
	mux.HandleFunc("POST /orders/{id}/cancel", func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var in struct {
			Reason string `json:"reason"`
		}
		_ = json.Unmarshal(raw, &in)
		problem(w, in.Reason)
	})
	mux.HandleFunc("GET /orders", func(w http.ResponseWriter, r *http.Request) {
		problem(w, r.URL.Query().Get("status"))
	})
	b := route.New(m.srv, mux, nil)
	type cancelIn struct {
		ID     string `json:"id" doc:"The order."`
		Reason string `json:"reason" doc:"Why; here, the locations to refuse."`
		Key    string `json:"key,omitzero" doc:"An idempotency key." in:"header=Idempotency-Key"`
		Notify bool   `json:"notify,omitzero" doc:"Tell the customer." in:"query"`
		Items  []int  `json:"items,omitempty" doc:"Lines."`
	}
	type listIn struct {
		Status string   `json:"status" doc:"Here, the locations to refuse."`
		Tags   []string `json:"tags,omitempty" doc:"Tags."`
	}
	route.AddTool[cancelIn](b, ferry.Tool{Name: "cancel_order", Description: "Cancels an order."}, "POST /orders/{id}/cancel")
	route.AddTool[listIn](b, ferry.Tool{Name: "list_orders", Description: "Lists orders."}, "GET /orders")
	m.serve(t)

	tests := []struct {
		tool, arg string
		locations map[string]string // as the service wrote it: as the model reads it
	}{
		{"cancel_order", "reason", map[string]string{
			"body.reason":            "reason",
			"body.items[1]":          "items[1]",
			"body":                   "",
			"/body/items/0":          "items[0]",
			"path.id":                "id",
			"query.notify":           "notify",
			"header.Idempotency-Key": "key",
			"header.idempotency-key": "key",
			"body.customer":          "body.customer",
			"path.other":             "path.other",
			"query.reason":           "query.reason",
			"header.X-Request-Id":    "header.X-Request-Id",
			"cookie.session":         "cookie.session",
			"items[2]":               "items[2]",
			"bodyguard":              "bodyguard",
		}},
		{"list_orders", "status", map[string]string{
			"query.status":  "status",
			"query.tags[1]": "tags[1]",
			"body.status":   "body.status",
			"query.limit":   "query.limit",
		}},
	}
	for _, tt := range tests {
		var locs, want []string
		for loc, arg := range tt.locations {
			locs = append(locs, loc)
			if arg == "" {
				want = append(want, "- is wrong")
			} else {
				want = append(want, "- "+arg+": is wrong")
			}
		}
		in := map[string]any{tt.arg: strings.Join(locs, "\n")}
		if tt.tool == "cancel_order" {
			in["id"] = "A-1"
		}
		args, _ := json.Marshal(in)
		for _, e := range eras {
			got := m.call(t, e, tt.tool, string(args))
			lines := strings.Split(got.Text, "\n")
			if !got.IsError || lines[0] != "invalid: Bad order." || len(lines) != len(want)+1 {
				t.Fatalf("%s %s: %q", e, tt.tool, got.Text)
			}
			for i, w := range want {
				if lines[i+1] != w {
					t.Errorf("%s %s: %s is quoted %q, want %q", e, tt.tool, locs[i], lines[i+1], w)
				}
			}
		}
	}
}
