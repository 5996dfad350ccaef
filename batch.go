package ferry

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// batchPeer is what serving a 2025-03-26 batch needs from a transport.
type batchPeer interface {
	// serveRequest answers one request of the batch.
	serveRequest(m *jsonrpc.Message, p *wireParams) []byte
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

// serveBatch serves the elements of a batch in order and returns the JSON
// array of answers, or nil when no element called for one or when ctx
// ended (the client is gone: nothing more is served). A batch over the
// item limit is refused whole with one error; once the answers reach the
// reply limit, the rest of the requests are answered with an error each
// and not served.
func serveBatch(ctx context.Context, batch *decodedBatch, peer batchPeer, lim batchLimits) []byte {
	lim = lim.orDefaults()
	if batch.n > lim.items {
		return jsonrpc.AppendError(nil, nil, int64(CodeInvalidRequest), "the batch has "+strconv.Itoa(batch.n)+
			" messages; at most "+strconv.Itoa(lim.items)+" are served: send fewer at a time", nil)
	}
	out := []byte{'['}
	full := false
	for _, it := range batch.items {
		if ctx.Err() != nil {
			return nil
		}
		resp := serveBatchItem(it, peer, full, lim.replyBytes)
		if !full && len(out)+len(resp)+1 > lim.replyBytes {
			full = true
			if id, ok := batchRequestID(it); ok {
				resp = jsonrpc.AppendError(nil, id, int64(CodeInternalError), replyTooLarge(lim.replyBytes, "its answer was dropped"), nil)
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

// batchRequestID returns the id of a request element, for an error
// answer.
func batchRequestID(in batchItem) (json.RawMessage, bool) {
	if in.err != nil || in.kind != jsonrpc.KindRequest {
		return nil, false
	}
	return in.m.ID, true
}

// serveBatchItem serves one element of a batch and returns its answer, or
// nil. Once the batch is full (its answers reached limit bytes), requests
// are answered with an error and not served.
func serveBatchItem(in batchItem, peer batchPeer, full bool, limit int) []byte {
	m := in.m
	switch {
	case in.err != nil:
		return decodeError(m, in.err)
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
		return peer.serveRequest(m, in.p)
	}
	return nil
}
