package ferry

// This file holds what a client learns of the server before anything
// else: the legacy initialize result and the modern server/discover one.

import (
	"encoding/json"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

func (s *Server) infoJSON() []byte {
	s.infoOnce.Do(func() { s.info, _ = json.Marshal(s.implementation()) })
	return s.info
}

func (s *Server) appendInitialize(b []byte, version string, stateless bool) []byte {
	b = appendKey(b, "protocolVersion")
	b = jsonrpc.AppendString(b, version)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(false, stateless))
	b = appendKey(b, "serverInfo")
	b = append(b, s.infoJSON()...)
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsonrpc.AppendString(b, s.opts.Instructions)
	}
	return b
}

func (s *Server) appendDiscover(b []byte) []byte {
	b = appendKey(b, "supportedVersions")
	b, _ = marshalInto(b, s.versions.all)
	b = appendKey(b, "capabilities")
	b, _ = marshalInto(b, s.capabilities(true, false))
	if s.opts.Instructions != "" {
		b = appendKey(b, "instructions")
		b = jsonrpc.AppendString(b, s.opts.Instructions)
	}
	return appendCacheable(b, false)
}
