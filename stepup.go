package ferry

// This file holds the HTTP answer to a call of a tool shown for step-up
// ([ServerOptions.StepUp]): 403 with an insufficient_scope challenge.

import (
	"context"
	"net/http"
	"slices"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// CodeInsufficientScope is the JSON-RPC error code of the body of an HTTP
// 403 answer to a call of a tool whose scopes the caller lacks (see
// [ServerOptions.StepUp]). Clients react to the status and its
// WWW-Authenticate challenge, not to the code; it is in the range
// JSON-RPC leaves to implementations.
const CodeInsufficientScope Code = -32003

// stepUpCall returns the scopes the caller of the request lacks for a
// tools/call of a tool shown to it for step-up, or nil. It asks as
// callTool will: [ServerOptions.Visible] sees req, the request being
// served, naming the tool, so that the two cannot disagree.
func (h *HTTPHandler) stepUpCall(ctx context.Context, req *request, method string, p *wireParams) []string {
	if !h.srv.opts.StepUp || method != "tools/call" {
		return nil
	}
	req.tool = p.Name
	defer func() { req.tool = "" }()
	return h.srv.stepUpScopes(ctx, req, p.Name)
}

// stepUpBatch returns the scopes the caller lacks for every tools/call of
// a batch that calls tools shown to it for step-up, or nil: such a batch
// is refused whole, before any of it is served. Each element is asked
// about as serving it will ask, with its own request (see stepUpCall), so
// that Visible sees the same CallInfo in both.
func (h *HTTPHandler) stepUpBatch(r *http.Request, batch *decodedBatch, sess legacySession) []string {
	if !h.srv.opts.StepUp || batch.n > h.batch.orDefaults().items {
		return nil // serving the batch refuses it
	}
	var missing []string
	for _, in := range batch.items {
		if in.err != nil || in.kind != jsonrpc.KindRequest || in.perr != nil || in.m.Method != "tools/call" {
			continue // serving it reports it
		}
		for _, sc := range h.stepUpCall(r.Context(), h.legacyRequest(r, in.m, sess), in.m.Method, in.p) {
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

// challenge is the insufficient_scope challenge: its parameters in the
// order error, scope, resource_metadata, error_description, each left out
// when empty; scope lists the scopes but offline_access, which the
// 2026-07-28 rules keep out of challenges.
func challenge(scopes []string, metadata, desc string) string {
	var b strings.Builder
	b.WriteString(`Bearer error="insufficient_scope"`)
	param := func(name, value string) {
		if value == "" {
			return
		}
		b.WriteString(", " + name + `="`)
		writeQuoted(&b, value)
		b.WriteByte('"')
	}
	param("scope", strings.Join(slices.DeleteFunc(slices.Clone(scopes), func(s string) bool {
		return s == "" || s == "offline_access"
	}), " "))
	param("resource_metadata", metadata)
	param("error_description", desc)
	return b.String()
}

// writeQuoted writes v as the inside of a quoted-string (RFC 9110): '"'
// and '\' escaped, and any byte below 0x20 or from 0x7f up written as '?',
// so that no value can end its parameter or split the header.
func writeQuoted(b *strings.Builder, v string) {
	for i := range len(v) {
		switch c := v[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			b.WriteByte('?')
		default:
			b.WriteByte(c)
		}
	}
}
