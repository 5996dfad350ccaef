package ferry

import (
	"net/http"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds 2025-03-26 batches over HTTP.

// postBatch serves a JSON array body: allowed in 2025-03-26 sessions only.
// The answers go back as one JSON array.
func (h *HTTPHandler) postBatch(w http.ResponseWriter, r *http.Request, batch *decodedBatch) {
	sess, status, err := h.session(r)
	if err != nil {
		if headerValue(r.Header, headerSessionID) == "" {
			status, err = http.StatusBadRequest, &Error{Code: CodeInvalidRequest, Message: batchRefusal("")}
		}
		h.writeError(w, status, nil, err)
		return
	}
	if sess.version != Version20250326 {
		h.writeError(w, http.StatusBadRequest, nil, &Error{Code: CodeInvalidRequest, Message: batchRefusal(sess.version)})
		return
	}
	lim := h.batch.orDefaults()
	if refusal := lim.refuse(batch.n); refusal != nil {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(refusal)
		return
	}
	// The batch's messages before its answer (the server's questions, a
	// request's progress and logs) turn the answer into an SSE stream, as
	// a single request's do; the answers then go as one event, the array.
	sw := &streamWriter{w: w, r: r, sse: acceptsSSE(headerValue(r.Header, "Accept"))}
	b := &httpBatch{h: h, r: r, sess: sess, out: sw, items: batch.items}
	b.reqs = b.resolve()
	if missing := h.srv.stepUpBatch(b.reqs); missing != nil {
		h.writeStepUp(w, nil, missing)
		return
	}
	if h.opts.Stateful {
		// The batch's requests join the live session, as single requests
		// do: the client's answers and cancellations reach them.
		b.live = h.liveAcquire(sess.id)
		defer h.liveRelease(sess.id, b.live)
	}
	out := serveBatch(r.Context(), b.items, b, lim)
	if out == nil {
		sw.mu.Lock()
		started := sw.started
		sw.closed = true
		sw.mu.Unlock()
		if !started {
			w.WriteHeader(http.StatusAccepted)
		}
		return
	}
	sw.finish(http.StatusOK, out)
}

// httpBatch serves a batch's elements in a legacy HTTP session.
type httpBatch struct {
	h     *HTTPHandler
	r     *http.Request
	sess  legacySession
	out   *streamWriter
	live  *liveSession // the stateful session's, or nil
	items []incoming
	reqs  []*request // the requests among items, resolved, by index
}

// resolve resolves the batch's requests, before any of it is served, so
// that a tool shown for step-up refuses the batch whole.
func (b *httpBatch) resolve() []*request {
	reqs := make([]*request, len(b.items))
	for i := range b.items {
		in := &b.items[i]
		if in.derr == nil && in.kind == jsonrpc.KindRequest && in.perr == nil && in.m.Method != "initialize" {
			reqs[i] = b.h.legacyRequest(b.r, in.m, in.p, b.sess)
		}
	}
	return reqs
}

func (b *httpBatch) serveRequest(i int, in *incoming) []byte {
	if b.h.drain.refuses() {
		return appendErrorResponse(nil, in.m.ID, errShuttingDown)
	}
	req := b.reqs[i]
	req.peer.out = b.out
	var resp []byte
	if ctx, j, err := b.h.join(req); err != nil {
		resp = appendErrorResponse(nil, req.id, err)
	} else {
		resp = b.h.srv.serve(ctx, req, nil)
		j.leave(req)
	}
	req.finish()
	return resp
}

func (b *httpBatch) deliver(m *jsonrpc.Message) {
	if !b.h.opts.Stateful {
		return
	}
	if err := b.h.reply(b.r.Context(), b.sess.id, m); err != nil {
		b.h.srv.logError(b.r.Context(), "relaying a reply", "err", err)
	}
}

func (b *httpBatch) notified(m *jsonrpc.Message, p *wireParams) {
	if m.Method == "notifications/cancelled" && b.h.opts.Stateful {
		if err := b.h.cancel(b.r.Context(), b.sess.id, p.RequestID); err != nil {
			b.h.srv.logError(b.r.Context(), "relaying a cancellation", "err", err)
		}
	}
}
