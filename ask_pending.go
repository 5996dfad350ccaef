package ferry

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"sync"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// This file holds the routing of the client's answers to the questions a
// server asks it in legacy sessions.

// pendingCalls routes the client's replies to the server's requests. Each
// request gets a random id ("ferry-" and 22 characters of 128 random
// bits), so that a reply is delivered only by a peer that saw the request:
// an id cannot be guessed.
type pendingCalls struct {
	mu     sync.Mutex // guards wait and closed
	wait   map[string]chan *jsonrpc.Message
	closed bool
}

// newCallID returns a random server-to-client request id, as JSON.
func newCallID() json.RawMessage {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := make([]byte, 0, 8+base64.RawURLEncoding.EncodedLen(len(b)))
	id = append(id, `"ferry-`...)
	id = base64.RawURLEncoding.AppendEncode(id, b[:])
	return append(id, '"')
}

// isCallID reports whether id has the shape of [newCallID]'s ids, so that
// an answer to anything else is not relayed to other replicas.
func isCallID(id json.RawMessage) bool {
	const n = len(`"ferry-"`) + 22 // 16 bytes, unpadded base64
	return len(id) == n && string(id[:7]) == `"ferry-` && id[n-1] == '"'
}

// close fails every waiting call and every later one: no reply can come.
func (p *pendingCalls) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for id, ch := range p.wait {
		close(ch)
		delete(p.wait, id)
	}
}

// call registers an id, sends with it, and waits for the reply or ctx.
func (p *pendingCalls) call(ctx context.Context, send func(id json.RawMessage) error) (*jsonrpc.Message, error) {
	ch := make(chan *jsonrpc.Message, 1)
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, ErrConnectionClosed
	}
	id := newCallID()
	if p.wait == nil {
		p.wait = make(map[string]chan *jsonrpc.Message)
	}
	p.wait[string(id)] = ch
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.wait, string(id))
		p.mu.Unlock()
	}()
	if err := send(id); err != nil {
		return nil, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return nil, ErrConnectionClosed
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// deliver hands a reply to its waiting call and reports whether one waited.
func (p *pendingCalls) deliver(m *jsonrpc.Message) bool {
	p.mu.Lock()
	ch, ok := p.wait[string(m.ID)]
	delete(p.wait, string(m.ID))
	p.mu.Unlock()
	if ok {
		ch <- m
	}
	return ok
}
