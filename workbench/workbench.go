package workbench

import (
	"embed"
	"encoding/json"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// assets are the page's files: index.html, its style sheet and script.
//
//go:embed assets
var assets embed.FS

// The defaults of [Options].
const (
	// DefaultTitle is the page's title when [Options.Title] is empty.
	DefaultTitle = "MCP workbench"
	// DefaultEndpoint is the MCP endpoint's path when
	// [Options.Endpoint] is empty.
	DefaultEndpoint = "/mcp"
)

// ContentSecurityPolicy is the policy every response of a [Handler]
// carries: the page runs only its own script and style sheet, loads
// images only from itself or data: URLs (the image content of results),
// talks only to its own origin, and may not be framed, submit forms
// elsewhere or change its base URL. No inline script or style runs, so a
// tool's description or result that holds markup stays text.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Options configures a [Handler]. The zero value serves the page for the
// MCP endpoint at /mcp, without a trace.
type Options struct {
	// Title names the server in the page's config.json. If empty,
	// [DefaultTitle].
	Title string
	// Endpoint is the absolute path of the MCP endpoint the page POSTs
	// to, on the page's own origin: "/mcp". If empty, [DefaultEndpoint].
	Endpoint string
	// Trace, if not nil, is served at "trace" below the page, to the
	// callers Auth lets through and MayReadTrace allows; the page
	// shows it. The server's observer must include it (see [Join]). If
	// nil, the page shows no trace, and "trace" is not found.
	Trace *Trace
	// Server, if not nil, is the server behind the MCP endpoint: the
	// page's catalog then shows each tool's groups, scopes and roles,
	// which tools/list does not carry, read from "catalog.json" below the
	// page, behind Auth. It names only the tools the caller may call
	// ([ferry.Server.Allows]), as tools/list does.
	Server *ferry.Server
	// Auth authenticates a request for the trace or the catalog before it
	// is served, and sets its caller with [ferry.WithPrincipal]: the MCP
	// endpoint's own authentication middleware (auth.Middleware), so that
	// they ask for the same credential as the endpoint. If nil, the
	// request is served anonymous.
	Auth func(http.Handler) http.Handler
	// MayReadTrace reports whether a caller that Auth let through
	// may read the trace; p is nil for an anonymous caller. A caller it
	// refuses gets 403. If nil, every authenticated caller may, and an
	// anonymous one may not: a server whose MCP endpoint needs no
	// credential allows anonymous callers here explicitly.
	MayReadTrace func(p *ferry.Principal) bool
}

// Handler serves the workbench: a page that lists an MCP server's tools,
// prompts and resources, calls them through the server's MCP endpoint as
// any client does, and shows the trace of the calls the server receives.
// Mount it under a path of its own with [Handler.Mount] or
// [http.StripPrefix]: it serves
//
//   - GET {prefix}/ the page, and its other files by name;
//   - GET {prefix}/config.json what the page needs to know: the title,
//     the MCP endpoint's path, the trace's path relative to the page
//     ("" when there is none) and the protocol version it speaks;
//   - GET {prefix}/trace?after=SEQ the trace's events after SEQ (see
//     [Trace]), behind [Options.Auth] and [Options.MayReadTrace];
//   - GET {prefix}/catalog.json the groups, scopes and roles of the tools
//     the caller may call, behind [Options.Auth], when [Options.Server]
//     is set.
//
// Every response carries [ContentSecurityPolicy], nosniff, no-referrer
// and no-store headers, and none sets a cookie: the credential the user
// types into the page stays in the page. Requests whose Host or Origin
// the MCP endpoint refuses are refused the same way. A Handler is safe
// for concurrent use.
type Handler struct {
	mcp    *ferry.HTTPHandler // whose Host and Origin rules the workbench follows
	config []byte             // config.json
	trace  http.Handler       // the trace endpoint behind its authentication, or nil
	tools  http.Handler       // catalog.json behind its authentication, or nil
}

// New returns the workbench of the MCP endpoint mcp: it follows mcp's
// Host and Origin rules. opts may be nil; it is copied. New panics if mcp
// is nil or opts.Endpoint is not an absolute path: both are programming
// errors.
func New(mcp *ferry.HTTPHandler, opts *Options) *Handler {
	if mcp == nil {
		panic("workbench: New needs the MCP endpoint's handler") //nolint:forbidigo // documented: a programming error
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Title == "" {
		o.Title = DefaultTitle
	}
	if o.Endpoint == "" {
		o.Endpoint = DefaultEndpoint
	}
	if !strings.HasPrefix(o.Endpoint, "/") || strings.HasPrefix(o.Endpoint, "//") ||
		strings.ContainsAny(o.Endpoint, "?#\\ \t\r\n") {
		panic("workbench: Options.Endpoint must be an absolute path such as /mcp, not " + strconv.Quote(o.Endpoint)) //nolint:forbidigo // documented: a programming error
	}
	h := &Handler{mcp: mcp}
	h.config = configJSON(o)
	if o.Trace != nil {
		h.trace = o.Trace.handler(o.MayReadTrace)
		if o.Auth != nil {
			h.trace = o.Auth(h.trace)
		}
	}
	if o.Server != nil {
		h.tools = catalogHandler(o.Server)
		if o.Auth != nil {
			h.tools = o.Auth(h.tools)
		}
	}
	return h
}

// configJSON is the page's config.json.
func configJSON(o Options) []byte {
	trace, catalog := "", ""
	if o.Trace != nil {
		trace = "trace"
	}
	if o.Server != nil {
		catalog = "catalog.json"
	}
	b, _ := json.Marshal(struct {
		Title           string `json:"title"`
		Endpoint        string `json:"endpoint"`
		Trace           string `json:"trace"`
		Catalog         string `json:"catalog,omitempty"`
		ProtocolVersion string `json:"protocolVersion"`
	}{o.Title, o.Endpoint, trace, catalog, ferry.Version20260728})
	return b
}

// Mount serves h on mux under prefix, a path such as "/ui": the page at
// prefix + "/", and prefix itself redirected there (with the same headers
// and checks), so that the page's relative URLs resolve below it. An
// empty prefix (or "/") serves h at the root of mux.
func (h *Handler) Mount(mux *http.ServeMux, prefix string) {
	prefix = strings.TrimSuffix(prefix, "/")
	mux.Handle(prefix+"/", http.StripPrefix(prefix, h))
	if prefix == "" {
		return
	}
	mux.Handle(prefix, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if h.refused(w, r) {
			return
		}
		http.Redirect(w, r, path.Base(prefix)+"/", http.StatusMovedPermanently)
	}))
}

// ServeHTTP implements [http.Handler]. It expects the path below the
// prefix the handler is mounted under: "/", "/config.json".
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.refused(w, r) {
		return
	}
	name := strings.TrimPrefix(r.URL.Path, "/")
	switch name {
	case "", "index.html":
		serveAsset(w, r, "index.html")
	case "config.json":
		writeBody(w, r, "application/json", h.config)
	case "catalog.json":
		if h.tools == nil {
			writeError(w, http.StatusNotFound, "not found: this workbench has no catalog")
			return
		}
		h.tools.ServeHTTP(w, r)
	case "trace":
		if h.trace == nil {
			writeError(w, http.StatusNotFound, "not found: this workbench has no trace")
			return
		}
		h.trace.ServeHTTP(w, r)
	default:
		serveAsset(w, r, name)
	}
}

// refused sets the headers every answer carries, and answers a request
// the handler does not serve: one whose Host or Origin the MCP endpoint
// refuses (as the endpoint refuses it), or whose method is not GET or
// HEAD. It reports whether it answered.
func (h *Handler) refused(w http.ResponseWriter, r *http.Request) bool {
	setHeaders(w.Header())
	if h.mcp.Refused(w, r) {
		return true
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, http.StatusMethodNotAllowed, "method not allowed: the workbench serves GET and HEAD")
		return true
	}
	return false
}

// setHeaders sets the headers every response carries.
func setHeaders(hd http.Header) {
	hd.Set("Content-Security-Policy", ContentSecurityPolicy)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cross-Origin-Opener-Policy", "same-origin")
	hd.Set("Cross-Origin-Resource-Policy", "same-origin")
}

// serveAsset answers with the embedded file name, or 404. Only the
// files of the assets directory are found: name is looked up as it is,
// never joined to a path, so ".." or an absolute path finds nothing.
func serveAsset(w http.ResponseWriter, r *http.Request, name string) {
	if !fs.ValidPath(name) || strings.HasPrefix(name, ".") || strings.Contains(name, "/.") {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	data, err := assets.ReadFile("assets/" + name)
	if err != nil {
		writeError(w, http.StatusNotFound, "not found")
		return
	}
	writeBody(w, r, contentType(name), data)
}

// contentType is the media type of an asset by its extension.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".json":
		return "application/json"
	case ".svg":
		return "image/svg+xml"
	}
	if t := mime.TypeByExtension(path.Ext(name)); t != "" {
		return t
	}
	return "application/octet-stream"
}

// writeBody answers 200 with data, or only its headers to a HEAD.
func writeBody(w http.ResponseWriter, r *http.Request, typ string, data []byte) {
	w.Header().Set("Content-Type", typ)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		_, _ = w.Write(data) //nolint:gosec // G705: data is an embedded file, config.json or the trace as JSON, never the request's text
	}
}

// writeError answers status with a JSON body {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
