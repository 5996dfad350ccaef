package ferry

import (
	"encoding/json"
	"slices"
)

// This file holds the negotiation of the protocol's extensions (SEP-2133):
// a server declares those it serves in the extensions member of its
// capabilities, a client those it speaks in its own (at initialize in the
// legacy era, in every request's _meta in 2026-07-28). A method of an
// extension is a row of the method table with its extension set: it does
// not exist on a server that does not serve the extension, and a client
// that did not declare it gets -32021 naming it, from [Server.resolve].

// Extension is an official extension of the protocol that Ferry knows.
// Extensions are off unless the server turns them on (each extension's
// option says how).
type Extension uint8

// The official extensions Ferry knows.
const (
	ExtensionTasks  Extension = 1 << iota // io.modelcontextprotocol/tasks (SEP-2663)
	ExtensionSkills                       // io.modelcontextprotocol/skills (SEP-2640)
	ExtensionUI                           // io.modelcontextprotocol/ui, MCP Apps (SEP-1865)
)

// extensionIDs are the extensions' identifiers, in the order of their bits.
var extensionIDs = [...]string{
	"io.modelcontextprotocol/tasks",
	"io.modelcontextprotocol/skills",
	"io.modelcontextprotocol/ui",
}

// String returns the extension's identifier, such as
// "io.modelcontextprotocol/tasks", or "" for no single known extension.
func (e Extension) String() string {
	for i, id := range extensionIDs {
		if e == 1<<i {
			return id
		}
	}
	return ""
}

// extensionOf returns the extension an identifier names, or 0.
func extensionOf(id string) Extension {
	if i := slices.Index(extensionIDs[:], id); i >= 0 {
		return 1 << i
	}
	return 0
}

// extensions is a set of extensions, as bits.
type extensions uint8

func (s extensions) has(e Extension) bool { return s&extensions(e) != 0 }

// list returns the identifiers of the set's extensions, in order.
func (s extensions) list() []string {
	var ids []string
	for i, id := range extensionIDs {
		if s&(1<<i) != 0 {
			ids = append(ids, id)
		}
	}
	return ids
}

// extensionsOf returns the set of the identifiers it knows among ids.
func extensionsOf(ids []string) extensions {
	var s extensions
	for _, id := range ids {
		s |= extensions(extensionOf(id))
	}
	return s
}

// Serves reports whether the server serves the extension e: it declares
// it in its capabilities and answers its methods.
func (s *Server) Serves(e Extension) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	_, ok := s.extensions[e]
	return ok
}

// serveExtension turns e on, with the settings object the server declares
// for it (nil for an empty one). It is for the options that turn an
// extension on, before the server serves.
func (s *Server) serveExtension(e Extension, settings any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.extensions == nil {
		s.extensions = map[Extension]any{}
	}
	if settings == nil {
		settings = struct{}{}
	}
	s.extensions[e] = settings
}

// extensionCapabilities returns the extensions member of the server's
// capabilities, or nil when it serves none. The caller holds s.mu.
func (s *Server) extensionCapabilitiesLocked() map[string]any {
	if len(s.extensions) == 0 {
		return nil
	}
	m := make(map[string]any, len(s.extensions))
	for e, settings := range s.extensions {
		m[e.String()] = settings
	}
	return m
}

// missingExtension is the -32021 error of a request that needs an
// extension its client did not declare: data.requiredCapabilities is a
// client capabilities object naming it.
func missingExtension(e Extension) *Error {
	return &Error{Code: CodeMissingClientCapability,
		Message: "the request needs the extension " + e.String() + ", which the client did not declare",
		Data: map[string]any{"requiredCapabilities": map[string]any{
			"extensions": map[string]json.RawMessage{e.String(): json.RawMessage("{}")}}}}
}
