package ferry

import "net/http"

// Refused reports whether h refuses r for its Host or Origin header (see
// [HTTPOptions.AllowedHosts] and [HTTPOptions.AllowedOrigins]), and if
// so answers it as it answers such a request to the MCP endpoint: 403
// with the same JSON-RPC error body, and the same warning in the
// server's log. A handler mounted beside the MCP endpoint, such as a
// page that calls it, starts with it to follow the endpoint's rules
// without repeating them:
//
//	if mcp.Refused(w, r) {
//		return
//	}
//
// It is safe for concurrent use.
func (h *HTTPHandler) Refused(w http.ResponseWriter, r *http.Request) bool {
	header, option := h.refusedBy(r)
	if header == "" {
		return false
	}
	// The same answer as ServeHTTP's (http.go); the workbench's tests
	// compare the two.
	h.srv.logger.WarnContext(r.Context(), "ferry: refused a request from an origin it does not serve",
		"header", header, "value", refusedValue(r, header),
		"hint", "if this client is yours, add it to HTTPOptions."+option)
	writeJSONError(w, http.StatusForbidden, CodeInvalidRequest, "forbidden: the request's "+header+" is not allowed")
	return true
}
