package ferry

import "net/http"

// Guard returns a handler that serves next only the requests h would
// serve by their Host and Origin headers (see [HTTPOptions.AllowedHosts]
// and [HTTPOptions.AllowedOrigins]), and refuses the others as h refuses
// them: 403 with the same JSON-RPC error body, and the same warning in
// the server's log. It lets a handler mounted beside the MCP endpoint,
// such as a page that calls it, follow the endpoint's rules without
// repeating them. The returned handler is safe for concurrent use if
// next is.
func (h *HTTPHandler) Guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The same refusal as ServeHTTP's (http.go); the workbench's tests
		// compare the two answers.
		if header, option := h.refusedBy(r); header != "" {
			h.srv.logger.WarnContext(r.Context(), "ferry: refused a request from an origin it does not serve",
				"header", header, "value", refusedValue(r, header),
				"hint", "if this client is yours, add it to HTTPOptions."+option)
			writeJSONError(w, http.StatusForbidden, CodeInvalidRequest, "forbidden: the request's "+header+" is not allowed")
			return
		}
		next.ServeHTTP(w, r)
	})
}
