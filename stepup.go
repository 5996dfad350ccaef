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
// tools/call of a tool shown to it for step-up, or nil.
func (h *HTTPHandler) stepUpCall(ctx context.Context, method, name string) []string {
	if !h.srv.opts.StepUp || method != "tools/call" {
		return nil
	}
	return h.srv.stepUpScopes(ctx, name)
}

// stepUpBatch returns the scopes the caller lacks for every tools/call of
// a batch that calls tools shown to it for step-up, or nil: such a batch
// is refused whole, before any of it is served.
func (h *HTTPHandler) stepUpBatch(ctx context.Context, body []byte) []string {
	if !h.srv.opts.StepUp {
		return nil
	}
	names, err := ParseToolCalls(body)
	if err != nil {
		return nil // serving the batch reports it
	}
	var missing []string
	for _, n := range names {
		for _, sc := range h.srv.stepUpScopes(ctx, n) {
			if !slices.Contains(missing, sc) {
				missing = append(missing, sc)
			}
		}
	}
	return missing
}

// writeStepUp answers HTTP 403 with the insufficient_scope challenge of
// RFC 6750 section 3.1 naming every scope missing (see
// [Server.stepUpMissing]), the resource metadata URL when
// configured, and a JSON-RPC error with [CodeInsufficientScope] and the
// request's id (null for a batch).
func (h *HTTPHandler) writeStepUp(w http.ResponseWriter, id []byte, missing []string) {
	desc := "this tool needs the scope(s) " + strings.Join(missing, ", ")
	var c strings.Builder
	c.WriteString(`Bearer error="insufficient_scope", scope="`)
	c.WriteString(challengeValue(strings.Join(missing, " ")))
	c.WriteByte('"')
	if u := h.opts.ResourceMetadataURL; u != "" {
		c.WriteString(`, resource_metadata="`)
		c.WriteString(challengeValue(u))
		c.WriteByte('"')
	}
	c.WriteString(`, error_description="`)
	c.WriteString(challengeValue(desc))
	c.WriteByte('"')
	w.Header().Set("WWW-Authenticate", c.String())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write(jsonrpc.AppendError(nil, id, int64(CodeInsufficientScope), "forbidden: "+desc, nil))
}

// challengeValue makes s fit a quoted-string of a challenge: RFC 6750
// allows neither '"' nor '\\' nor control characters in its values, so
// they are dropped.
func challengeValue(s string) string {
	if !strings.ContainsFunc(s, badChallengeRune) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if badChallengeRune(r) {
			return -1
		}
		return r
	}, s)
}

func badChallengeRune(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r == 0x7f }
