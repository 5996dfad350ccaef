package ferry

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ferry-mcp/ferry/schema"
)

// Icon is an image a client may show for the server, a tool, a prompt or a
// resource.
type Icon struct {
	// Src is an https URL or a data: URI.
	Src      string   `json:"src"`
	MIMEType string   `json:"mimeType,omitempty"`
	Sizes    []string `json:"sizes,omitempty"`
	// Theme is "light" or "dark", or empty for any.
	Theme string `json:"theme,omitempty"`
}

// ServerOptions configures a [Server]. The zero value is valid; every field
// documents its default.
type ServerOptions struct {
	// Title is the server's display name. If empty, clients show its name.
	Title string
	// Description says what the server is for, in a sentence.
	Description string
	// WebsiteURL is the server's home page.
	WebsiteURL string
	// Icons are images clients may show for the server.
	Icons []Icon
	// Instructions tell the model how to use the server; a client may put
	// them in its system prompt.
	Instructions string
	// Logger receives the server's logs: one Info record per tool call,
	// and an Error record for every failure masked behind a reference, so
	// that the reference a model quotes leads to the details. If nil, the
	// records from Warn up go to [slog.Default] (the masked failures, not
	// the call log); to discard them all, pass
	// slog.New(slog.DiscardHandler).
	Logger *slog.Logger
	// ProtocolVersions narrows the versions the server speaks to those
	// listed. If empty, every version in [SupportedVersions] is spoken.
	ProtocolVersions []string
	// PageSize is the number of entries a list method returns per page.
	// If zero, [DefaultPageSize] is used.
	PageSize int
	// SigningKeys are the HMAC keys that sign stateless session ids, the
	// request state of multi round-trip requests and list cursors. The
	// first key signs; every key verifies, so a key can be rotated by
	// putting the new one first. Every replica behind one endpoint needs
	// the same keys. If empty, a random key is made for this process, and
	// what it signs is valid on this process only.
	SigningKeys [][]byte
	// CompletionHandler answers completion/complete for arguments that have
	// no Completer or Values of their own. The server declares completions
	// when it has a handler, a prompt or a resource template.
	CompletionHandler Completer
	// ToolMiddleware wraps every tool call, first listed outermost. The call
	// log and the mapping of errors and panics to results are applied
	// around all of it, so a middleware's refusal reads as a handler's.
	ToolMiddleware []ToolMiddleware
	// OnToolError maps an error a tool or a middleware returned (one that
	// is not a refusal or an [*Error]) to the result the model sees, such as
	// a refusal for a service's own "not allowed" error. ctx is the call's:
	// it carries the [Principal] and the [CallInfo]. Returning nil masks
	// the error as unexpected. If nil, every such error is masked.
	OnToolError func(ctx context.Context, err error) *ToolResult
	// Visible decides which tools the caller of ctx may see, on top of the
	// tools' own [Tool.Scopes] and [Tool.Roles] and of ReadOnly, which are
	// enforced without it (see [Server.Allows]): it can only hide more. A
	// hidden tool is left out of tools/list (before paging, so pages stay
	// full and cursors keep working) and answers tools/call exactly as a
	// tool that does not exist, in both eras. While it is set, modern
	// tools/list results say cacheScope "private", since they depend on
	// the caller. It runs on every tools/list entry and every tools/call,
	// and, with the context of a stream's caller (which has no
	// [CallInfo]), for each stream told of a tools list change, so that a
	// change of a tool hidden from it does not reach it. It runs
	// concurrently, and must be fast and safe for concurrent use. It may
	// run while the server's registry is locked, so it must not call the
	// Server's methods. If nil, no tool is hidden beyond its requirements.
	// It applies to tools only: prompts and resources are hidden by their
	// own Scopes and Roles.
	Visible func(ctx context.Context, t ToolInfo) bool
	// Coercion is how tools with an input schema (typed ones, and those
	// given a [Tool.InputSchema]) treat arguments of the wrong JSON type. If
	// zero, [schema.Unambiguous]: "12" for an integer, "true" for a boolean,
	// "£1,234.00" for a number and "a, b" for a list of strings are accepted.
	Coercion schema.Policy

	// ScopeImplies reports whether a held scope grants a needed one, for
	// scope hierarchies where a broad scope implies narrow ones
	// ("orders" grants "orders:read"). A scope always grants itself. It
	// runs on every check of a requirement, concurrently, and must be
	// fast. It is not asked about an empty held scope, which grants
	// nothing. If nil, a scope grants only itself.
	ScopeImplies func(held, needed string) bool

	// StepUp lists the tools whose [Tool.Scopes] an authenticated caller
	// lacks (its roles met) instead of hiding them, so that its client can
	// ask for the missing scopes: over HTTP, calling one gets HTTP 403 with
	// a WWW-Authenticate insufficient_scope challenge naming every missing
	// scope (see [HTTPOptions.ResourceMetadataURL]); elsewhere (stdio) the
	// call gets the refusal "forbidden: this tool needs the scope(s) a, b".
	// An anonymous caller still does not see them. Prompts and resources
	// are hidden either way. If false, a tool whose scopes or roles the
	// caller lacks is hidden and answers as an unknown tool.
	StepUp bool
	// DescribeRequirements appends the requirements of each tool, prompt,
	// resource and template to its listed description: "Requires the scope
	// orders:write." and "Only for the roles admin, clerk.", so that the
	// model knows. The sentence is added once, at registration, and the
	// description's length limit applies to the result.
	DescribeRequirements bool
	// ReadOnly hides and refuses every tool that may write: every tool
	// whose [ToolInfo.Writes] is true, that is every tool not marked
	// [Tool.ReadOnly]. Such a tool is left out of lists and answers
	// tools/call as an unknown tool does, for every caller. [Server.Catalog]
	// still lists it; [Server.Allows] says it is refused.
	ReadOnly bool

	// Confirm has a person confirm each call of a destructive tool
	// ([ToolInfo.Destructive]) before it runs, unless the tool says
	// otherwise ([Tool.Confirm]). The person reads the tool's title and
	// name, its arguments and what it will change ([Tool.Summarize]): in
	// a legacy session as an elicitation the call waits for (at most
	// [Limits.ConfirmTimeout]), in the 2026-07-28 era as an
	// input_required result whose question the client puts to its user
	// before it retries with the answer (see [ConfirmKey]); that answer
	// is bound to the call, its arguments and its caller by the signed
	// request state, so it cannot be replayed for another. Only "accept"
	// runs the tool. A decline, a cancel or no answer is a refusal the
	// model reads ("declined: the user declined ..."), and so is a client
	// that cannot ask (it did not declare elicitation, or its session is
	// stateless legacy HTTP, which has no stream for the question). If
	// false, only tools whose policy is [ConfirmAlways] ask.
	Confirm bool

	// Limits bound what one caller can make the server do. The zero
	// value holds the defaults (see [Limits]).
	Limits Limits

	// Discovery, if not nil, turns on discovery mode: tools/list carries
	// a search tool, a call tool and the pinned tools instead of every
	// tool, and a model finds the tool it needs by searching (see
	// [DiscoveryOptions] and docs/groups.md). Every rule of a direct call
	// holds for a call through the call tool. If nil, every tool is
	// listed.
	Discovery *DiscoveryOptions

	// Toolsets, if not nil, turns on legacy toolsets: a legacy session
	// that keeps state (a stateful HTTP handler's, or stdio) is served the
	// groups it enables with a tool that lists them, and is told that
	// its lists changed (see [ToolsetOptions] and docs/groups.md). It is
	// never offered to a 2026-07-28 request.
	Toolsets *ToolsetOptions

	// Observer is told of every request the server answers, with its
	// method, target, id, version, session, outcome, duration and the
	// trace context the client sent in params._meta; the context it
	// returns from Start is the handler's parent, so that a span started
	// there is the handler's parent span. The otelferry module provides
	// one that makes OpenTelemetry spans and metrics. If nil, nothing is
	// observed, at no cost.
	Observer Observer

	// Tasks, if not nil, turns on the tasks extension
	// (io.modelcontextprotocol/tasks): a tool whose [Tool.TaskSupport]
	// allows it runs as a task for a client that declared the extension,
	// polled with tasks/get. See [TaskOptions].
	Tasks *TaskOptions

	// Skills, if not nil, turns on the skills extension
	// (io.modelcontextprotocol/skills): the skills added with
	// [Server.AddSkill], [Server.AddSkills] and [Server.AddToolSkill] are
	// listed with skills/list and their files served as skill://
	// resources. See [SkillOptions].
	Skills *SkillOptions

	// Apps, if not nil, turns on the apps extension
	// (io.modelcontextprotocol/ui, MCP Apps): the apps added with
	// [Server.AddApp] are served to clients that declared the extension,
	// and a tool's [Tool.App] links it to one. See [AppOptions].
	Apps *AppOptions
}

// Server is an MCP server: a registry of tools, prompts and resources served
// over any number of transports and connections at once, in both protocol
// eras. A Server is safe for concurrent use; tools may be added and removed
// while it serves.
type Server struct {
	name, version string
	id            string // random: tells this server's relayed changes from others' (notify_relay.go)
	opts          ServerOptions
	logger        *slog.Logger
	callLog       bool // a Logger was given: the call log is written (the default logger drops it)
	versions      versionSet
	keys          *keyring
	pageSize      int
	timeout       time.Duration // a tool call's deadline; 0: none
	limits        *callLimits   // per-caller limits, or nil
	maxDepth      int           // how deeply a message may nest

	infoOnce sync.Once
	info     []byte // serverInfo JSON

	mu        sync.RWMutex // guards the registries below
	tools     registry[*toolEntry]
	prompts   registry[*promptEntry]
	resources registry[*resourceEntry]
	templates registry[*templateEntry]

	problems []error        // start-up problems, guarded by mu
	checks   []func() error // AddCheck's checks, guarded by mu
	// extensions are the extensions the server serves, with the settings
	// it declares for each; guarded by mu.
	extensions map[Extension]any
	// tasks are the tasks extension's tasks, or nil when it is off.
	tasks *tasks
	// skills are the skills extension's skills, or nil when it is off.
	skills *skillSet
	// apps are the apps extension's settings, or nil when it is off.
	apps *AppOptions
	// serving is set, under mu, once a transport has started serving: a
	// problem found later is logged instead of collected.
	serving bool
	// schemaTemplate is the template of AddSchemaResources, whose {tool}
	// variable completes to tool names; guarded by mu.
	schemaTemplate string
	// groupDocs are the groups' descriptions (see [Server.DescribeGroup]);
	// guarded by mu.
	groupDocs map[string]string

	watchMu  sync.Mutex            // guards watchers
	watchers map[*watcher]struct{} // streams told about changes (notify_watch.go)
	// relays are the hooks of the handlers that relay changes to other
	// replicas (notify_relay.go), read without a lock and replaced whole
	// under watchMu.
	relays atomic.Pointer[[]*relayHook]

	discovery *discovery // discovery mode, or nil (discovery.go)
	toolsets  *toolsets  // legacy toolsets, or nil (toolset.go)

	foreignLogged atomic.Int64 // when a foreign signature was last logged, unix nanoseconds

	runMu  sync.Mutex               // guards runs and closed
	runs   map[*streamConn]struct{} // the connections Run serves, for Shutdown
	closed bool                     // Shutdown was called
}

// NewServer returns a server with the given name and version (the
// serverInfo clients see). opts may be nil; it is copied. It panics if
// opts.ProtocolVersions names no version Ferry supports.
func NewServer(name, version string, opts *ServerOptions) *Server {
	s := &Server{name: name, version: version, id: newSessionID()}
	if opts != nil {
		s.opts = *opts
	}
	s.logger, s.callLog = s.opts.Logger, s.opts.Logger != nil
	if s.logger == nil {
		s.logger = defaultLogger()
	}
	s.versions = newVersionSet(s.opts.ProtocolVersions)
	if len(s.versions.all) == 0 {
		panic("ferry: ServerOptions.ProtocolVersions names no version Ferry supports") //nolint:forbidigo // a programmer error at construction, documented on NewServer
	}
	s.keys = newKeyring(s.opts.SigningKeys)
	s.keys.foreign = s.foreignSignature
	s.pageSize = s.opts.PageSize
	if s.pageSize <= 0 {
		s.pageSize = DefaultPageSize
	}
	s.timeout = s.opts.Limits.CallTimeout
	if s.timeout == 0 {
		s.timeout = DefaultCallTimeout
	}
	s.limits = newCallLimits(&s.opts)
	if s.opts.Tasks != nil {
		s.tasks = newTasks(s.opts.Tasks)
		s.serveExtension(ExtensionTasks, nil)
	}
	if s.opts.Skills != nil {
		s.skills = newSkillSet(s.opts.Skills)
		s.serveExtension(ExtensionSkills, map[string]any{"directoryRead": true})
	}
	if s.opts.Apps != nil {
		s.apps = s.opts.Apps
		s.serveExtension(ExtensionUI, nil)
	}
	s.discovery = newDiscovery(s, s.opts.Discovery)
	s.toolsets = newToolsets(s, s.opts.Toolsets)
	s.maxDepth = s.opts.Limits.MaxJSONDepth
	if s.maxDepth <= 0 {
		s.maxDepth = DefaultMaxJSONDepth
	}
	return s
}

// implementation is the serverInfo object.
type implementation struct {
	Name        string `json:"name"`
	Version     string `json:"version"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	WebsiteURL  string `json:"websiteUrl,omitempty"`
	Icons       []Icon `json:"icons,omitempty"`
}

func (s *Server) implementation() implementation {
	return implementation{Name: s.name, Version: s.version, Title: s.opts.Title,
		Description: s.opts.Description, WebsiteURL: s.opts.WebsiteURL, Icons: s.opts.Icons}
}

// logError logs an unexpected failure.
func (s *Server) logError(ctx context.Context, msg string, args ...any) {
	s.logger.ErrorContext(ctx, msg, args...)
}

// Logger returns the logger the server writes to ([ServerOptions.Logger],
// or [slog.Default]), for layers that report what they find (a check's
// warnings) where the server's logs go.
func (s *Server) Logger() *slog.Logger { return s.logger }
