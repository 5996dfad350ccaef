package ferry

import (
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// This file holds the HTTP handler's Host and Origin checks, which defeat
// DNS rebinding and requests from other origins' pages (another site, or
// another app on this machine). The rules are documented on
// [HTTPOptions.AllowedHosts] and [HTTPOptions.AllowedOrigins]. They run on
// every request, and allocate nothing for loopback hosts, names, and
// same-origin or listed Origins.

// refusedBy returns the header a request is refused for, "Host" or
// "Origin", with the option that would allow it, or "" when it may be
// served. An Origin sent twice is refused: each copy could be read.
func (h *HTTPHandler) refusedBy(r *http.Request) (header, option string) {
	if !h.allowedHost(r.Host) {
		return "Host", "AllowedHosts"
	}
	switch origins := r.Header["Origin"]; {
	case len(origins) > 1:
		return "Origin", "AllowedOrigins"
	case len(origins) == 1 && !h.allowedOrigin(origins[0], r.Host):
		return "Origin", "AllowedOrigins"
	}
	return "", ""
}

// maxLoggedValue is how many bytes of a refused header the log shows:
// enough to recognize a client, not the megabyte of headers a request may
// carry, which every refused request would otherwise write to the log.
const maxLoggedValue = 256

// refusedValue is the value of the header a request was refused for, as
// the log shows it (cut to maxLoggedValue bytes): net/http keeps Host
// apart from the other headers.
func refusedValue(r *http.Request, header string) string {
	v := r.Host
	if header != "Host" {
		v = strings.Join(r.Header.Values(header), ", ")
	}
	if len(v) > maxLoggedValue {
		v = strings.ToValidUTF8(v[:maxLoggedValue], "") + "…"
	}
	return v
}

// allowedHost reports whether a request's Host header names this server:
// a loopback host, or one of AllowedHosts.
func (h *HTTPHandler) allowedHost(hostport string) bool {
	if hostport == "" {
		return true // HTTP/1.0 without Host: nothing to rebind
	}
	host, port := splitAuthority(hostport)
	if host == "" {
		return false
	}
	if isLoopback(host) {
		return true
	}
	for _, a := range h.opts.AllowedHosts {
		if a == "*" {
			return true
		}
		if ah, ap := splitAuthority(a); ah != "" && strings.EqualFold(ah, host) && (ap == "" || ap == port) {
			return true
		}
	}
	return false
}

// allowedOrigin reports whether a request's Origin header, if any, may
// call this server: the request's own origin (the Origin's host and port
// are the Host's), or one of AllowedOrigins.
func (h *HTTPHandler) allowedOrigin(origin, hostport string) bool {
	if origin == "" || slices.Contains(h.opts.AllowedOrigins, "*") {
		return true // no Origin: not sent by a browser page
	}
	scheme, host, port, ok := splitOrigin(origin)
	if !ok {
		return false // "null" (sandboxed or file: pages) and malformed values
	}
	for _, a := range h.opts.AllowedOrigins {
		if as, ah, ap, ok := splitOrigin(a); ok && strings.EqualFold(as, scheme) && strings.EqualFold(ah, host) && ap == port {
			return true
		}
	}
	rh, rp := splitAuthority(hostport)
	// The scheme is not compared: behind a proxy that terminates TLS the
	// request arrives over plain HTTP from an https page of the same host.
	return rh != "" && strings.EqualFold(rh, host) && (rp == port || rp == "" && port == defaultPort(scheme))
}

// isLoopback reports whether host (without port or brackets) is
// "localhost", in any case, or a loopback IP address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if host == "" || !strings.Contains(host, ":") && (host[len(host)-1] < '0' || host[len(host)-1] > '9') {
		return false // not an IP address; ParseAddr's error would allocate
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}

// splitAuthority splits host[:port] (a Host header, or a URL's authority)
// into its host, without IPv6 brackets and without the trailing dot of a
// fully qualified name, and its port, empty if absent. Hosts are
// case-insensitive (RFC 3986 §3.2.2): compare them with strings.EqualFold.
func splitAuthority(s string) (host, port string) {
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", ""
		}
		host, rest := s[1:end], s[end+1:]
		if rest != "" {
			if rest[0] != ':' {
				return "", ""
			}
			port = rest[1:]
		}
		return host, port
	}
	host = s
	if i := strings.IndexByte(s, ':'); i >= 0 {
		if strings.IndexByte(s[i+1:], ':') >= 0 {
			return "", "" // an IPv6 address must be bracketed
		}
		host, port = s[:i], s[i+1:]
	}
	return strings.TrimSuffix(host, "."), port
}

// splitOrigin splits a serialized origin, scheme "://" host [":" port]
// (RFC 6454), into its parts; an absent port is the scheme's default. A
// trailing "/" is tolerated, for allow-list entries written as URLs.
func splitOrigin(s string) (scheme, host, port string, ok bool) {
	scheme, auth, found := strings.Cut(s, "://")
	auth = strings.TrimSuffix(auth, "/")
	if !found || scheme == "" || strings.ContainsAny(auth, "/?#@") {
		return "", "", "", false
	}
	host, port = splitAuthority(auth)
	if port == "" {
		port = defaultPort(scheme)
	}
	return scheme, host, port, host != ""
}

// defaultPort is the port a URL of scheme means when it names none.
func defaultPort(scheme string) string {
	switch {
	case strings.EqualFold(scheme, "http"), strings.EqualFold(scheme, "ws"):
		return "80"
	case strings.EqualFold(scheme, "https"), strings.EqualFold(scheme, "wss"):
		return "443"
	}
	return ""
}
