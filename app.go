package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"unicode/utf8"
)

// This file holds the apps extension (io.modelcontextprotocol/ui, MCP
// Apps, SEP-1865): an app is an HTML page served as a ui:// resource,
// which a client that declared the extension renders in a sandboxed
// frame when a tool linked to it ([Tool.App]) is called. The page speaks
// JSON-RPC with the client over postMessage (ui/initialize, the tool's
// input and result as notifications, tools/call back to the server);
// the server only serves the page and says, in _meta.ui, which outside
// origins it needs (its CSP) and which browser permissions it asks for.
// A client that did not declare the extension never sees the app: not
// in resources/list, not by resources/read, not in the tool's _meta;
// the tool's text result is all it reads.

// AppMIMEType is the MIME type of an app's HTML: HTML with the MCP app
// profile.
const AppMIMEType = "text/html;profile=mcp-app"

// AppOptions turn on the apps extension: the server declares
// io.modelcontextprotocol/ui, serves the apps added with [Server.AddApp]
// to clients that declared it, and links tools to them ([Tool.App]). It
// has no settings yet.
type AppOptions struct{}

// App is an MCP App: an HTML page a client shows with a tool's results.
type App struct {
	// URI is the app's resource URI: ui://, such as ui://shop/stock-chart.
	URI string
	// Name and Description are the resource's, as clients list it.
	Name        string
	Description string
	// HTML is the page: one HTML document, its scripts and styles inline
	// (the client's default CSP allows inline ones, and nothing from
	// elsewhere unless CSP says so).
	HTML []byte
	// CSP names the outside origins the page needs. If nil, it needs none,
	// and the client lets it load nothing from outside.
	CSP *AppCSP
	// Permissions are the browser features the page asks for; a client
	// may refuse them.
	Permissions AppPermissions
	// PrefersBorder, if not nil, asks the client for a border and
	// background around the frame (true) or none (false).
	PrefersBorder *bool
	// Scopes, Roles and Groups are the app's, as for a [Resource].
	Scopes []string
	Roles  []string
	Groups []string
}

// AppCSP names the origins an app's page may reach, such as
// "https://cdn.example.com" (a client blocks every other).
type AppCSP struct {
	// ConnectDomains may be fetched from (fetch, XHR, WebSocket).
	ConnectDomains []string `json:"connectDomains,omitempty"`
	// ResourceDomains may serve scripts, styles, images, fonts and media.
	ResourceDomains []string `json:"resourceDomains,omitempty"`
	// FrameDomains may be framed by the page.
	FrameDomains []string `json:"frameDomains,omitempty"`
	// BaseURIDomains may be the document's base URI.
	BaseURIDomains []string `json:"baseUriDomains,omitempty"`
}

// AppPermissions are the browser features an app asks for.
type AppPermissions struct {
	Camera         bool
	Microphone     bool
	Geolocation    bool
	ClipboardWrite bool
}

// MarshalJSON implements [json.Marshaler]: each feature asked for is an
// empty object, as the extension says.
func (p AppPermissions) MarshalJSON() ([]byte, error) {
	m := map[string]struct{}{}
	for name, on := range map[string]bool{"camera": p.Camera, "microphone": p.Microphone,
		"geolocation": p.Geolocation, "clipboardWrite": p.ClipboardWrite} {
		if on {
			m[name] = struct{}{}
		}
	}
	return json.Marshal(m)
}

// appUIMeta is the _meta.ui of an app's contents.
type appUIMeta struct {
	CSP           *AppCSP         `json:"csp,omitempty"`
	Permissions   *AppPermissions `json:"permissions,omitempty"`
	PrefersBorder *bool           `json:"prefersBorder,omitempty"`
}

// AddApp serves an app's page as its ui:// resource, to clients that
// declared the apps extension. A URI that is not ui://, an empty page or
// one that is not UTF-8, a CSP origin that is not an http(s) or ws(s)
// origin, or the extension off is a start-up problem (see
// [Server.Check]).
func (s *Server) AddApp(a App) {
	if err := s.checkApp(&a); err != nil {
		s.problem(fmt.Errorf("app %q: %w", a.URI, err))
		return
	}
	ui := appUIMeta{CSP: a.CSP, PrefersBorder: a.PrefersBorder}
	if a.Permissions != (AppPermissions{}) {
		ui.Permissions = &a.Permissions
	}
	meta, err := json.Marshal(map[string]any{"ui": ui})
	if err != nil {
		s.problem(fmt.Errorf("app %q: %w", a.URI, err))
		return
	}
	page := string(a.HTML)
	read := func(context.Context, *ReadResourceRequest) ([]ResourceContents, error) {
		return []ResourceContents{{URI: a.URI, MIMEType: AppMIMEType, Text: page, Meta: meta}}, nil
	}
	groups := a.Groups
	if groups == nil {
		groups = []string{}
	}
	s.addResource(Resource{URI: a.URI, Name: a.Name, Description: a.Description, MIMEType: AppMIMEType,
		Size: int64(len(a.HTML)), Scopes: a.Scopes, Roles: a.Roles, Groups: groups}, read, ExtensionUI)
}

// checkApp returns what is wrong with an app, or nil.
func (s *Server) checkApp(a *App) error {
	var errs []error
	if s.apps == nil {
		errs = append(errs, errors.New("the apps extension is off: set ServerOptions.Apps"))
	}
	if !strings.HasPrefix(a.URI, "ui://") || len(a.URI) == len("ui://") {
		errs = append(errs, errors.New("an app's URI is ui://, such as ui://shop/stock-chart"))
	}
	if a.Name == "" {
		errs = append(errs, errors.New("an app needs a name"))
	}
	if len(a.HTML) == 0 || !utf8.Valid(a.HTML) {
		errs = append(errs, errors.New("an app's HTML must be a UTF-8 document"))
	}
	if a.CSP != nil {
		for _, list := range [][]string{a.CSP.ConnectDomains, a.CSP.ResourceDomains, a.CSP.FrameDomains, a.CSP.BaseURIDomains} {
			for _, o := range list {
				if !cspOrigin(o) {
					errs = append(errs, fmt.Errorf("CSP origin %q: want a scheme and host, such as https://cdn.example.com or https://*.example.com", o))
				}
			}
		}
	}
	return errors.Join(errs...)
}

// cspOrigin reports whether o is an origin a CSP source list may name:
// http, https, ws or wss, a host (its first label may be *), an optional
// port, nothing else (no path, no quote, no space).
func cspOrigin(o string) bool {
	scheme, host, ok := strings.Cut(o, "://")
	if !ok || (scheme != "https" && scheme != "http" && scheme != "wss" && scheme != "ws") || host == "" {
		return false
	}
	host = strings.TrimPrefix(host, "*.")
	for _, c := range host {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '-' || c == ':') {
			return false
		}
	}
	return true
}

// checkToolApp returns what is wrong with a tool's link to its app: the
// extension off or a URI that is not ui://. Whether the app exists is
// checked by [Server.Check], since it may be added after the tool.
func (s *Server) checkToolApp(t *Tool) []error {
	if s.apps == nil {
		return []error{fmt.Errorf("tool %q: its App %q needs the apps extension: set ServerOptions.Apps", t.Name, t.App)}
	}
	if !strings.HasPrefix(t.App, "ui://") {
		return []error{fmt.Errorf("tool %q: its App %q is not a ui:// URI", t.Name, t.App)}
	}
	name, uri := t.Name, t.App
	s.AddCheck(func() error {
		s.mu.RLock()
		e, ok := s.resources.get(uri)
		s.mu.RUnlock()
		if !ok || e.ext != ExtensionUI {
			return fmt.Errorf("tool %q: its App %q is not an app the server serves (add it with AddApp)", name, uri)
		}
		return nil
	})
	return nil
}

// withAppMeta returns a tool's _meta with ui.resourceUri set to uri,
// leaving meta as it is.
func withAppMeta(meta map[string]any, uri string) map[string]any {
	m := maps.Clone(meta)
	if m == nil {
		m = map[string]any{}
	}
	ui := map[string]any{}
	if given, ok := m["ui"].(map[string]any); ok {
		maps.Copy(ui, given)
	}
	ui["resourceUri"] = uri
	m["ui"] = ui
	return m
}

// appToolWire returns how tools/list sends a tool to the client of r:
// with its app for a client that declared the apps extension, without
// it for any other.
func (s *Server) appToolWire(r *request) func(*toolEntry) []byte {
	if r.caps.ext.has(ExtensionUI) {
		return (*toolEntry).wire
	}
	return func(e *toolEntry) []byte {
		if e.plain != nil {
			return e.plain
		}
		return e.json
	}
}
