package ferry

import (
	"context"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// batchPeer is what serving a 2025-03-26 batch needs from a transport.
type batchPeer interface {
	// serveRequest answers the batch's element i, a request.
	serveRequest(i int, in *incoming) []byte
	// deliver hands over a reply to one of the server's own requests.
	deliver(m *jsonrpc.Message)
	// notified takes one notification of the batch.
	notified(m *jsonrpc.Message, p *wireParams)
}

// batchLimits bound a batch; zero fields mean the defaults.
type batchLimits struct {
	items      int // [DefaultMaxBatchItems]
	replyBytes int // [DefaultMaxBatchReplyBytes]
}

func (l batchLimits) orDefaults() batchLimits {
	if l.items <= 0 {
		l.items = DefaultMaxBatchItems
	}
	if l.replyBytes <= 0 {
		l.replyBytes = DefaultMaxBatchReplyBytes
	}
	return l
}

// refuse returns the error response to a batch of n elements over the
// item limit, refused whole before any of it is served, or nil.
func (l batchLimits) refuse(n int) []byte {
	if n <= l.items {
		return nil
	}
	return jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), "the batch has "+strconv.Itoa(n)+
		" messages; at most "+strconv.Itoa(l.items)+" are served: send fewer at a time", nil)
}

// serveBatch serves the elements of a batch in order and returns the JSON
// array of answers, or nil when no element called for one or when ctx
// ended (the client is gone: nothing more is served). Once the answers
// reach the reply limit, the rest of the requests are answered with an
// error each and not served.
func serveBatch(ctx context.Context, items []incoming, peer batchPeer, lim batchLimits) []byte {
	out := []byte{'['}
	full := false
	for i := range items {
		if ctx.Err() != nil {
			return nil
		}
		in := &items[i]
		resp := serveBatchItem(i, in, peer, full, lim.replyBytes)
		if !full && len(out)+len(resp)+1 > lim.replyBytes {
			full = true
			if in.derr == nil && in.kind == jsonrpc.KindRequest {
				resp = jsonrpc.AppendError(nil, in.m.ID, int64(CodeInternalError), replyTooLarge(lim.replyBytes, "its answer was dropped"), nil)
			}
		}
		if resp != nil {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, resp...)
		}
	}
	if len(out) == 1 {
		return nil
	}
	return append(out, ']')
}

// replyTooLarge is the error message of a batch request left unanswered
// because the batch's answers reached limit bytes; what says what became
// of the request.
func replyTooLarge(limit int, what string) string {
	return "the batch's answers reached their limit of " + strconv.Itoa(limit) + " bytes, so " + what + ": send it on its own"
}

// serveBatchItem serves the batch's element i and returns its answer, or
// nil. Once the batch is full (its answers reached limit bytes), requests
// are answered with an error and not served.
func serveBatchItem(i int, in *incoming, peer batchPeer, full bool, limit int) []byte {
	m := in.m
	switch {
	case in.derr != nil:
		return decodeError(m, in.derr)
	case in.kind == jsonrpc.KindResponse:
		peer.deliver(m)
	case in.kind == jsonrpc.KindNotification:
		if in.perr == nil {
			peer.notified(m, in.p)
		}
	case in.perr != nil:
		return appendErrorResponse(nil, m.ID, in.perr)
	case m.Method == "initialize":
		return jsonrpc.AppendError(nil, m.ID, int64(CodeInvalidRequest), "initialize cannot be part of a batch", nil)
	case full:
		return jsonrpc.AppendError(nil, m.ID, int64(CodeInternalError), replyTooLarge(limit, "this request was not served"), nil)
	default:
		return peer.serveRequest(i, in)
	}
	return nil
}

func batchRefusal(version string) string {
	if version == "" {
		return "batches need a session initialized with protocol version 2025-03-26"
	}
	return "batches are not allowed in protocol version " + version
}
