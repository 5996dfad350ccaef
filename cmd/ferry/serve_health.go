package main

import (
	"context"
	"database/sql"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// This file holds ferry serve's health endpoints: /healthz says the
// process serves; /readyz that it is not draining and that each of
// s.checks answers (one per database it serves: build adds them).

// mountHealth serves /healthz and /readyz on mux, outside the
// authentication of /mcp (a kubelet's probe carries no credential), and
// says where. h is the MCP handler, whose drain fails readiness.
func (s *server) mountHealth(mux *http.ServeMux, h *ferry.HTTPHandler, base string) {
	hh := ferry.NewHealthHandler(&ferry.HealthOptions{Handlers: []*ferry.HTTPHandler{h}, Checks: s.checks, Logger: s.log})
	hh.Mount(mux)
	what := "not draining"
	if len(s.checks) > 0 {
		names := make([]string, len(s.checks))
		for i, c := range s.checks {
			names[i] = c.Name
		}
		what += " and " + joinLimited(names, maxListed) + " answering"
	}
	s.say("health: %s/healthz (alive), %s/readyz (ready: %s)", base, base, what)
}

// databaseCheck is the readiness check of a database served: a ping,
// which takes a connection of the pool. While calls hold every one, the
// ping would wait behind them and fail readiness under load, taking the
// replica out of rotation when it is busiest: then the check passes
// without a ping. The calls end within their deadline, so a database that
// stopped answering frees the pool and fails the next check.
func databaseCheck(name string, db *sql.DB) ferry.HealthCheck {
	return ferry.HealthCheck{Name: "database " + healthName(name), Check: func(ctx context.Context) error {
		if st := db.Stats(); st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections {
			return nil
		}
		return db.PingContext(ctx)
	}}
}

// healthName is a name as a check may carry it: printable, at most 50
// bytes.
func healthName(name string) string {
	name = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, name)
	if len(name) > 50 {
		name = strings.ToValidUTF8(name[:50], "") + "…"
	}
	return name
}
