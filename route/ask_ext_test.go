package route_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/route"
	"github.com/google/go-cmp/cmp"
)

// ledger is a test service with a locked period.
type ledger struct {
	mu    sync.Mutex // guards asked
	asked []string   // "METHOD path Authorization Mcp-Tool body", in order
}

func (l *ledger) mux() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/ledger/accruals", func(w http.ResponseWriter, r *http.Request) {
		var in struct{ Period string }
		body := l.note(r)
		_ = json.Unmarshal(body, &in)
		if in.Period == "2026-11" {
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusConflict)
			_, _ = io.WriteString(w, `{"title":"Conflict","status":409,"detail":"Period 2026-11 is locked."}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, `{"posted":3}`)
	})
	mux.HandleFunc("POST /api/ledger/periods/{period}/lock", func(w http.ResponseWriter, r *http.Request) {
		l.note(r)
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("GET /api/ledger/periods/{period}", func(w http.ResponseWriter, r *http.Request) {
		l.note(r)
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"period":"`+r.PathValue("period")+`","status":"`+r.URL.Query().Get("view")+`"}`)
	})
	return mux
}

func (l *ledger) note(r *http.Request) []byte {
	body, _ := io.ReadAll(r.Body)
	tool, _ := route.FromAgent(r)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.asked = append(l.asked, strings.Join([]string{r.Method, r.URL.RequestURI(), r.Header.Get("Authorization"), tool, string(body)}, " "))
	return body
}

type periodIn struct {
	Period string `json:"period" doc:"The month, yyyy-MM." pattern:"^[0-9]{4}-[0-9]{2}$"`
}

// monthEnd posts the accruals, then locks the period, stopping at the
// first refusal.
func monthEnd(ctx context.Context, in periodIn) (*ferry.ToolResult, error) {
	a, err := route.Ask(ctx, "POST /ledger/accruals", map[string]string{"period": in.Period})
	if err != nil {
		return nil, err
	}
	if err := a.Err(); err != nil {
		return nil, err
	}
	a, err = route.Ask(ctx, "POST /ledger/periods/"+in.Period+"/lock", nil)
	if err != nil {
		return nil, err
	}
	return a.Result()
}

func TestAJobAsksThePipelineAndStopsAtTheFirstRefusal(t *testing.T) {
	for _, e := range eras {
		t.Run(string(e), func(t *testing.T) {
			l := &ledger{}
			m := newMCPServer(t)
			b := route.New(m.srv, l.mux(), &route.Options{Prefix: "/api"})
			route.AddJob(b, ferry.Tool{Name: "month_end", Description: "Closes the month."}, monthEnd)
			m.serve(t)

			got := m.call(t, e, "month_end", `{"period":"2026-10"}`, "Authorization", "Bearer u")
			if got.Text != route.DoneText || got.IsError {
				t.Errorf("an open period: %+v", got)
			}
			got = m.call(t, e, "month_end", `{"period":"2026-11"}`, "Authorization", "Bearer u")
			if got.Text != "conflict: Period 2026-11 is locked." || !got.IsError {
				t.Errorf("a locked period: %+v", got)
			}
			want := []string{
				`POST /api/ledger/accruals Bearer u month_end {"period":"2026-10"}`,
				`POST /api/ledger/periods/2026-10/lock Bearer u month_end `,
				`POST /api/ledger/accruals Bearer u month_end {"period":"2026-11"}`, // and nothing after the refusal
			}
			if diff := cmp.Diff(want, l.asked); diff != "" {
				t.Errorf("the ledger was asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestAnAnswerHoldsStatusHeadersBodyAndProblem(t *testing.T) {
	l := &ledger{}
	m := newMCPServer(t)
	b := route.New(m.srv, l.mux(), &route.Options{Prefix: "/api"})
	var answers []*route.Answer
	ferry.AddTool(m.srv, ferry.Tool{Name: "inspect", Description: "Asks."}, func(ctx context.Context, _ noIn) (string, error) {
		for _, q := range []struct {
			route string
			body  any
		}{
			{"GET /ledger/periods/2026-10?view=full", nil},
			{"POST /ledger/accruals", json.RawMessage(`{"period":"2026-11"}`)},
		} {
			a, err := b.Ask(ctx, q.route, q.body)
			if err != nil {
				return "", err
			}
			answers = append(answers, a)
		}
		return "asked", nil
	})
	m.serve(t)
	if got := m.call(t, modern, "inspect", `{}`); got.Text != "asked" {
		t.Fatalf("%+v", got)
	}
	ok, refused := answers[0], answers[1]
	var period struct{ Period, Status string }
	if err := ok.Decode(&period); err != nil || period.Period != "2026-10" || period.Status != "full" {
		t.Errorf("Decode: %+v, %v", period, err)
	}
	if ok.IsError() || ok.Err() != nil || ok.Status != 200 || ok.Header.Get("Content-Type") != "application/json" || ok.Problem != nil || len(ok.RequestID) != 16 {
		t.Errorf("success: %+v", ok)
	}
	want := &route.Problem{Title: "Conflict", Status: 409, Detail: "Period 2026-11 is locked."}
	if !refused.IsError() || refused.Status != 409 || !cmp.Equal(refused.Problem, want, cmp.AllowUnexported(route.Problem{})) {
		t.Errorf("refusal: %+v, problem %+v", refused, refused.Problem)
	}
	if err := refused.Err(); err == nil || err.Error() != "conflict: Period 2026-11 is locked." {
		t.Errorf("Err() = %v", err)
	}
	if res, err := refused.Result(); res != nil || err == nil {
		t.Errorf("Result() of a refusal = %v, %v", res, err)
	}
}

func TestAskRefusesWhatItCannotAsk(t *testing.T) {
	l := &ledger{}
	m := newMCPServer(t)
	b := route.New(m.srv, l.mux(), nil)
	if _, err := b.Ask(t.Context(), "GET /ledger", nil); err == nil || err.Error() != "route: Ask needs the context of a tool call" {
		t.Errorf("Ask outside a call: %v", err)
	}
	if _, err := route.Ask(t.Context(), "GET /ledger", nil); err == nil || !strings.Contains(err.Error(), "added with AddJob") {
		t.Errorf("route.Ask outside a job: %v", err)
	}
	var errs []string
	ferry.AddTool(m.srv, ferry.Tool{Name: "bad", Description: "Asks badly."}, func(ctx context.Context, _ noIn) (string, error) {
		for _, q := range []struct {
			route string
			body  any
		}{
			{"FETCH /ledger", nil},
			{"GET ledger", nil},
			{"GET //evil.example/x", nil},
			{"GET /ledger", map[string]int{"a": 1}},
			{"POST /ledger", []byte("not json")},
			{"POST /ledger", func() {}},
		} {
			_, err := b.Ask(ctx, q.route, q.body)
			errs = append(errs, errString(err))
		}
		return "", nil
	})
	m.serve(t)
	m.call(t, modern, "bad", `{}`)
	want := []string{
		`route: Ask "FETCH /ledger": a route is one of GET, HEAD, POST, PUT, PATCH, DELETE and a path`,
		`route: Ask "GET ledger": the path must be absolute and clean, without a host`,
		`route: Ask "GET //evil.example/x": the path must be absolute and clean, without a host`,
		`route: Ask GET /ledger: a GET request has no body`,
		`route: Ask POST /ledger: the body is not JSON`,
		`route: Ask POST /ledger: json: unsupported type: func()`,
	}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
