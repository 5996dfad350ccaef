package main

import (
	"strconv"

	"github.com/ferry-mcp/ferry"
)

// sayConfirm says, once the tools are known, which calls wait for a
// person's confirmation (-confirm), when the server may write.
func (s *server) sayConfirm(srv *ferry.Server) {
	if !s.cfg.writes && !s.cfg.confirm {
		return
	}
	if !s.cfg.confirm {
		s.say("confirmation: none; calls that delete or overwrite run when the model calls them (give -confirm to have a person confirm each)")
		return
	}
	n := 0
	for _, t := range srv.Catalog().Tools() {
		if t.Confirm && (s.cfg.writes || !t.Writes()) {
			n++
		}
	}
	s.say("confirmation: %s ask the client's user before each call and run only on accept (-confirm)", plural(n, "1 tool", strconv.Itoa(n)+" tools"))
}
