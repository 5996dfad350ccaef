package ferry

import (
	"encoding/json"

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

// serveBatch serves the elements of a batch in order and returns the JSON
// array of answers, or nil when no element called for one.
func serveBatch(items []json.RawMessage, peer batchPeer) []byte {
	out := []byte{'['}
	for _, raw := range items {
		in, err := decodeMessage(raw)
		m := in.m
		var resp []byte
		switch {
		case err != nil:
			resp = decodeError(m, err)
		case in.kind == jsonrpc.KindResponse:
			peer.deliver(m)
		case in.kind == jsonrpc.KindNotification:
			if in.perr == nil {
				peer.notified(m, in.p)
			}
		case in.perr != nil:
			resp = appendErrorResponse(nil, m.ID, in.perr)
		case m.Method == "initialize":
			resp = jsonrpc.AppendError(nil, m.ID, int64(CodeInvalidRequest), "initialize cannot be part of a batch", nil)
		default:
			resp = peer.serveRequest(m, in.p)
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
