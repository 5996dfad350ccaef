package ferry

// This file holds the HTTP answer to a call of a tool shown for step-up
// ([ServerOptions.StepUp]): 403 with an insufficient_scope challenge.

import (
	"net/http"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/internal/bearer"
	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// stepUpBatch returns the scopes the caller lacks for every tools/call
// of a batch, resolved, that calls a tool shown to it for step-up, or nil:
// such a batch is refused whole, before any of it is served.
func (s *Server) stepUpBatch(reqs []*request) []string {
	var missing []string
	for _, req := range reqs {
		if req == nil || req.target.access != accessStepUp {
			continue
		}
		for _, sc := range s.stepUpMissing(req.context(), req.target.tool.info.Scopes) {
			if !slices.Contains(missing, sc) {
				missing = append(missing, sc)
			}
		}
	}
	return missing
}

// writeStepUp answers HTTP 403 with the insufficient_scope challenge of
// RFC 6750 section 3.1 naming every scope missing (see
// [Server.stepUpMissing]), the resource metadata URL when configured, and
// a JSON-RPC error with [CodeInsufficientScope] and the request's id
// (null for a batch). The challenge is written as the auth package's
// Challenge writes its own, so that one client parser reads both.
func (h *HTTPHandler) writeStepUp(w http.ResponseWriter, id []byte, missing []string) {
	desc := "this tool needs the scope(s) " + strings.Join(missing, ", ")
	w.Header().Set("WWW-Authenticate", challenge(missing, h.opts.ResourceMetadataURL, desc))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(jsonrpc.AppendError(nil, id, int64(CodeInsufficientScope), "forbidden: "+desc, nil))
}

// challenge is the insufficient_scope challenge, in the form the auth
// package's Challenge writes too (see [bearer.Challenge]).
func challenge(scopes []string, metadata, desc string) string {
	return bearer.Challenge("insufficient_scope", scopes, metadata, desc)
}
