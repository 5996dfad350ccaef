package ferry

// This file holds what a client learns of the server before anything
// else: the legacy initialize result and the modern server/discover one.

import (
	"context"
	"encoding/json"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

func (s *Server) infoJSON() []byte {
	s.infoOnce.Do(func() { s.info, _ = json.Marshal(s.implementation()) })
	return s.info
}

// serveInitialize answers a legacy initialize, once its session is
// negotiated (its version is r's).
func (s *Server) serveInitialize(_ context.Context, r *request, b []byte) ([]byte, error) {
	b = appendKey(b, "protocolVersion")
	b = jsontext.AppendString(b, r.version)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(false, r.stateless()))
	b = appendKey(b, "serverInfo")
	b = append(b, s.infoJSON()...)
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsontext.AppendString(b, s.opts.Instructions)
	}
	return b, nil
}

// servePing answers a legacy ping: an empty result.
func servePing(_ *Server, _ context.Context, _ *request, b []byte) ([]byte, error) { return b, nil }

// serveDiscover answers a modern server/discover.
func (s *Server) serveDiscover(_ context.Context, _ *request, b []byte) ([]byte, error) {
	b = appendKey(b, "supportedVersions")
	b, _ = marshalInto(b, s.versions.all)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(true, false))
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsontext.AppendString(b, s.opts.Instructions)
	}
	return appendCacheable(b, false), nil
}
