package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// WellKnownPath is where RFC 9728 puts a protected resource's metadata;
// a resource with a path has it at this path followed by its own
// (path insertion, RFC 9728 §3.1).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Resource is this MCP server as an OAuth protected resource: its
// canonical URI, the authorization servers that issue its tokens, and the
// metadata document (RFC 9728) clients read to find them. Build one with
// [NewResource]; it is immutable and safe for concurrent use.
type Resource struct {
	uri      string
	path     string
	metaURL  string
	scopes   []string
	document []byte
}

// ResourceOptions holds the optional parts of a [Resource]'s metadata.
type ResourceOptions struct {
	// Scopes lists the scopes clients may ask for (scopes_supported).
	// offline_access is left out: a resource does not ask for refresh
	// tokens. If empty, the member is omitted.
	Scopes []string
	// Name is a human-readable name of the resource (resource_name).
	Name string
	// Documentation is the URL of a page for developers
	// (resource_documentation).
	Documentation string
}

// metadata is the RFC 9728 document.
type metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// NewResource describes the MCP endpoint at uri (absolute http or https,
// without query or fragment: "https://mcp.example.com/mcp"), whose tokens
// the authorization servers (their issuer URLs, at least one) issue.
// Tokens are taken from the Authorization header only
// (bearer_methods_supported ["header"]). It returns an error naming what
// is wrong with a URI or a scope.
func NewResource(uri string, authorizationServers []string, opts *ResourceOptions) (*Resource, error) {
	if opts == nil {
		opts = &ResourceOptions{}
	}
	u, err := checkURL(uri)
	if err != nil {
		return nil, fmt.Errorf("auth: resource %w", err)
	}
	if len(authorizationServers) == 0 {
		return nil, errors.New("auth: a resource needs at least one authorization server")
	}
	for _, as := range authorizationServers {
		if _, err := checkURL(as); err != nil {
			return nil, fmt.Errorf("auth: authorization server %w", err)
		}
	}
	var scopes []string
	for _, s := range opts.Scopes {
		if err := checkScope(s); err != nil {
			return nil, err
		}
		if s != offlineAccess {
			scopes = append(scopes, s)
		}
	}
	r := &Resource{uri: uri, path: strings.TrimSuffix(u.EscapedPath(), "/"), scopes: scopes}
	r.metaURL = u.Scheme + "://" + u.Host + WellKnownPath + r.path
	r.document, err = json.Marshal(metadata{
		Resource:               uri,
		AuthorizationServers:   authorizationServers,
		ScopesSupported:        scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           opts.Name,
		ResourceDocumentation:  opts.Documentation,
	})
	if err != nil {
		return nil, fmt.Errorf("auth: encoding resource metadata: %w", err)
	}
	return r, nil
}

// checkURL parses an absolute http(s) URL without query or fragment.
func checkURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is not a URL", s)
	case u.Scheme != "https" && u.Scheme != "http", u.Host == "":
		return nil, fmt.Errorf("%q is not an absolute http or https URL", s)
	case u.RawQuery != "" || u.Fragment != "" || u.User != nil:
		return nil, fmt.Errorf("%q has a query, a fragment or user info", s)
	}
	return u, nil
}

// URI returns the resource's canonical URI, the audience its tokens must
// name (RFC 8707).
func (r *Resource) URI() string { return r.uri }

// MetadataURL returns the URL of the metadata document in the
// path-inserted form ("https://mcp.example.com/.well-known/oauth-protected-resource/mcp"),
// the value of resource_metadata in challenges: give it to
// [Options.Resource] (through this Resource) and to the ferry HTTP
// handler's options for its 403 step-up challenge.
func (r *Resource) MetadataURL() string { return r.metaURL }

// Scopes returns the scopes the metadata advertises.
func (r *Resource) Scopes() []string { return append([]string(nil), r.scopes...) }

// MetadataPaths returns the paths the metadata is served at on this
// resource's host: the path-inserted form and, for a resource with a
// path, the root form that older clients try last.
func (r *Resource) MetadataPaths() []string {
	if r.path == "" {
		return []string{WellKnownPath}
	}
	return []string{WellKnownPath + r.path, WellKnownPath}
}

// Mount registers [Resource.MetadataHandler] on mux at every path of
// [Resource.MetadataPaths]. The MCP handler is mounted beside it, at the
// resource's own path, behind [Middleware]; the metadata is public.
func (r *Resource) Mount(mux *http.ServeMux) {
	h := r.MetadataHandler()
	for _, p := range r.MetadataPaths() {
		mux.Handle(p, h)
	}
}

// MetadataHandler returns a handler serving the metadata document as JSON
// to GET and HEAD, with "Access-Control-Allow-Origin: *" so browser-based
// clients can read it; it answers a CORS preflight (OPTIONS) with 204 and
// any other method with 405. The document is encoded once, by
// [NewResource].
func (r *Resource) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		switch req.Method {
		case http.MethodGet, http.MethodHead:
			h.Set("Content-Type", "application/json")
			h.Set("Cache-Control", "public, max-age=3600")
			w.WriteHeader(http.StatusOK)
			if req.Method == http.MethodGet {
				_, _ = w.Write(r.document)
			}
		case http.MethodOptions:
			h.Set("Access-Control-Allow-Methods", "GET, HEAD")
			h.Set("Access-Control-Allow-Headers", "Mcp-Protocol-Version")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
		default:
			h.Del("Access-Control-Allow-Origin")
			h.Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		}
	})
}
