package ferry

import (
	"context"
	"slices"
)

// This file holds the method table: every method the server answers, in
// one place, with what each needs. The router is the table: [Server.resolve]
// answers an unknown method, a method of the other era and a method whose
// requirement is missing from it, [Server.serve] runs a row's handler, the
// capabilities that initialize and server/discover declare are derived
// from it, and observers read a request's row. Adding a method is adding a
// row and its handler. The eras the rows belong to, and the protocol
// versions of each, are here too.

// era is the protocol eras a method belongs to, as bits.
type era uint8

const (
	eraLegacy era = 1 << iota // 2025-03-26, 2025-06-18, 2025-11-25: sessions
	eraModern                 // 2026-07-28: stateless, _meta on every request
	eraBoth   = eraLegacy | eraModern
)

// has reports whether e includes the era of a request (modern or not).
func (e era) has(modern bool) bool {
	if modern {
		return e&eraModern != 0
	}
	return e&eraLegacy != 0
}

// capability is a server capability, as initialize and server/discover
// declare it.
type capability uint8

const (
	capNone capability = iota
	capTools
	capPrompts
	capResources
	capLogging
	capCompletions
)

// capabilityNames are the capabilities' names in the capabilities object.
var capabilityNames = [...]string{capTools: "tools", capPrompts: "prompts", capResources: "resources",
	capLogging: "logging", capCompletions: "completions"}

// targetKind is what a method's request names.
type targetKind uint8

const (
	targetNone     targetKind = iota
	targetTool                // params.name, a tool
	targetPrompt              // params.name, a prompt
	targetResource            // params.uri, a resource or a template's, looked up
	targetURI                 // params.uri, named but not looked up (a subscription)
	targetTask                // params.taskId, a task of the caller's
)

// A method is one row of the method table.
type method struct {
	name string
	eras era
	// capability is the server capability the method belongs to.
	capability capability
	// gated says the method does not exist (-32601) unless the server
	// declares its capability: a list of nothing, a completion of
	// nothing. A method that names a target answers for an unknown one
	// instead.
	gated bool
	// session says the method changes a legacy session's state, so it
	// does not exist where nothing is kept (a stateless HTTP session).
	session bool
	// target is what the request names: its entry is looked up, and the
	// caller's access to it judged, once, by [Server.resolve] (a URI a
	// subscription names is only read there).
	target targetKind
	// page is the member of the result that holds a page of entries, for
	// a list method whose result has a nextCursor; "" for the others.
	page string
	// extension is the extension the method belongs to, or 0 for the
	// core protocol: it exists only when the server serves the extension,
	// and a client that did not declare the extension gets -32021.
	extension Extension
	// undeclared says the extension's method is answered to a client that
	// did not declare the extension (skills: it asks nothing of the
	// client).
	undeclared bool
	// asks says the method's handler may ask the client something
	// ([Elicit] and the like): in the 2026-07-28 era it answers
	// input_required, and its retry carries the answers.
	asks bool
	// runsApp says the method runs the application's code (a tool's,
	// a prompt's or a resource's handler, a completer): a shutdown past
	// its deadline cancels it (see [drain.watch]).
	runsApp bool
	// ordered says a stream connection (stdio) serves the request before
	// it reads the next line: the methods that set up or change the
	// session.
	ordered bool
	// serve appends the result's members to an open object. It returns
	// an [*Error] to answer with instead; any other error is masked.
	serve func(s *Server, ctx context.Context, r *request, b []byte) ([]byte, error)
}

// methods is the method table, in the order the specification lists
// them. It is filled by init, since its handlers read it (a server's
// capabilities are derived from it).
var methods []method

func init() {
	methods = []method{
		{name: "initialize", eras: eraLegacy, ordered: true, serve: (*Server).serveInitialize},
		{name: "ping", eras: eraLegacy, serve: servePing},
		{name: "server/discover", eras: eraModern, serve: (*Server).serveDiscover},
		{name: "tools/list", eras: eraBoth, capability: capTools, gated: true, page: "tools", serve: (*Server).listTools},
		{name: "tools/call", eras: eraBoth, capability: capTools, target: targetTool, asks: true, runsApp: true, serve: (*Server).callTool},
		{name: "prompts/list", eras: eraBoth, capability: capPrompts, gated: true, page: "prompts", serve: (*Server).listPrompts},
		{name: "prompts/get", eras: eraBoth, capability: capPrompts, target: targetPrompt, asks: true, runsApp: true, serve: (*Server).getPrompt},
		{name: "resources/list", eras: eraBoth, capability: capResources, gated: true, page: "resources", serve: (*Server).listResources},
		{name: "resources/templates/list", eras: eraBoth, capability: capResources, gated: true, page: "resourceTemplates", serve: (*Server).listTemplates},
		{name: "resources/read", eras: eraBoth, capability: capResources, target: targetResource, asks: true, runsApp: true, serve: (*Server).readResource},
		{name: "resources/subscribe", eras: eraLegacy, capability: capResources, gated: true, session: true, target: targetURI, ordered: true, serve: (*Server).subscribe},
		{name: "resources/unsubscribe", eras: eraLegacy, capability: capResources, gated: true, session: true, target: targetURI, ordered: true, serve: (*Server).subscribe},
		{name: "subscriptions/listen", eras: eraModern, serve: (*Server).listen},
		{name: "logging/setLevel", eras: eraLegacy, capability: capLogging, session: true, ordered: true, serve: (*Server).setLevel},
		{name: "completion/complete", eras: eraBoth, capability: capCompletions, gated: true, runsApp: true, serve: (*Server).complete},
		{name: "tasks/get", eras: eraBoth, target: targetTask, extension: ExtensionTasks, serve: (*Server).getTask},
		{name: "tasks/update", eras: eraBoth, target: targetTask, extension: ExtensionTasks, serve: (*Server).updateTask},
		{name: "tasks/cancel", eras: eraBoth, target: targetTask, extension: ExtensionTasks, serve: (*Server).cancelTask},
		{name: "skills/list", eras: eraBoth, extension: ExtensionSkills, undeclared: true, page: "skills", serve: (*Server).listSkills},
		{name: "skills/get", eras: eraBoth, extension: ExtensionSkills, undeclared: true, serve: (*Server).getSkill},
		{name: "resources/directory/read", eras: eraBoth, extension: ExtensionSkills, undeclared: true, serve: (*Server).readSkillDirectory},
	}
	methodIndex = make(map[string]*method, len(methods))
	for i := range methods {
		methodIndex[methods[i].name] = &methods[i]
		decodeMethods = append(decodeMethods, methods[i].name)
	}
	decodeMethods = append(decodeMethods, clientNotifications...)
}

// clientNotifications are the notifications a client sends that the
// server reads.
var clientNotifications = []string{"notifications/initialized", "notifications/cancelled", "notifications/roots/list_changed"}

// decodeMethods are the method names a message decodes without
// allocating (see [newDecoder]): those of the table and the client
// notifications the server reads.
var decodeMethods []string

// methodIndex finds a row by name.
var methodIndex map[string]*method

// lookupMethod returns the row of the method name, or nil when the
// server answers no method of that name in either era.
func lookupMethod(name string) *method { return methodIndex[name] }

// servedIn reports whether the method exists for a request of the given
// era and session: a method of the other era does not, and a method that
// changes a session's state does not where none is kept.
func (m *method) servedIn(modern, stateless bool) bool {
	return m.eras.has(modern) && !(m.session && (modern || stateless))
}

// declaresLocked reports whether the server has what capability c
// offers: tools, prompts, resources or templates, something to complete.
// Logging is the session's, not the registry's. The caller holds s.mu.
func (s *Server) declaresLocked(c capability) bool {
	switch c {
	case capTools:
		return s.tools.len() > 0
	case capPrompts:
		return s.prompts.len() > 0
	case capResources:
		return s.resources.len() > 0 || s.templates.len() > 0
	case capCompletions:
		return s.opts.CompletionHandler != nil || s.prompts.len() > 0 || s.templates.len() > 0
	}
	return true
}

// capabilities returns the capabilities object of an answer to initialize
// (legacy) or server/discover (modern), derived from the table: a
// capability is declared when the server has what it offers and one of
// its methods is served in the era and session; lists announce their
// changes, and resources take subscriptions, where the session can hear
// of them (not in a stateless legacy HTTP session, which has no stream).
func (s *Server) capabilities(modern, stateless bool) map[string]any {
	s.mu.RLock()
	defer s.mu.RUnlock()
	notifies := modern || !stateless
	caps := map[string]any{}
	for i := range methods {
		m := &methods[i]
		name := capabilityNames[m.capability]
		if m.capability == capNone || caps[name] != nil || !m.servedIn(modern, stateless) || !s.declaresLocked(m.capability) {
			continue
		}
		c := map[string]any{}
		switch m.capability {
		case capTools, capPrompts:
			if notifies {
				c["listChanged"] = true
			}
		case capResources:
			if notifies {
				c["listChanged"], c["subscribe"] = true, true
			}
		}
		caps[name] = c
	}
	if ext := s.extensionCapabilitiesLocked(); ext != nil {
		caps["extensions"] = ext
	}
	return caps
}

// Protocol versions Ferry speaks, newest first.
const (
	Version20260728 = "2026-07-28"
	Version20251125 = "2025-11-25"
	Version20250618 = "2025-06-18"
	Version20250326 = "2025-03-26"
)

// supportedVersions lists every protocol version Ferry implements, newest
// first.
var supportedVersions = []string{Version20260728, Version20251125, Version20250618, Version20250326}

// SupportedVersions returns every protocol version Ferry implements, newest
// first. [ServerOptions.ProtocolVersions] may narrow it.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// IsModern reports whether version belongs to the stateless era that starts
// with 2026-07-28 (no initialize, version in every request's _meta).
func IsModern(version string) bool { return isDate(version) && version >= Version20260728 }

// isDate reports whether v has the form of a protocol version, yyyy-mm-dd.
func isDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i, c := range []byte(v) {
		if i != 4 && i != 7 && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// versionSet is the server's supported versions, split by era.
type versionSet struct {
	all    []string // newest first
	legacy []string // newest first
	modern []string // newest first
}

func newVersionSet(allowed []string) versionSet {
	var vs versionSet
	for _, v := range supportedVersions {
		if len(allowed) > 0 && !slices.Contains(allowed, v) {
			continue
		}
		vs.all = append(vs.all, v)
		if IsModern(v) {
			vs.modern = append(vs.modern, v)
		} else {
			vs.legacy = append(vs.legacy, v)
		}
	}
	return vs
}

func (vs *versionSet) supports(v string) bool { return slices.Contains(vs.all, v) }

// negotiate answers a legacy initialize: the requested version when the server
// supports it, else the newest legacy version it supports.
func (vs *versionSet) negotiate(requested string) string {
	if slices.Contains(vs.legacy, requested) {
		return requested
	}
	if len(vs.legacy) > 0 {
		return vs.legacy[0]
	}
	return ""
}

// onlyModern answers initialize on a server that speaks no legacy version.
const onlyModern = "this server speaks only the stateless protocol (2026-07-28 and later): send requests with the _meta fields instead of initialize"
