package main

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/openapi"
)

// serveUpstreamHelp is the part of serve's help about serving a remote
// API: an OpenAPI document's operations, or a protobuf service's
// methods.
const serveUpstreamHelp = `
ferry serve -openapi FILE|URL -upstream URL serves the operations of an
OpenAPI 3.0 or 3.1 document (JSON or YAML, its $refs to files beside it
read too) as tools that call the API at -upstream, its base URL (the
paths are put after it; the document's servers are not used). A document
of more than 30 operations needs -operations: operation ids, tags or
"METHOD /path" patterns, comma-separated, "!" before one to leave it out
(-operations issues,pulls,!issues/lock); the error lists the tags and
their counts. ferry lint -openapi FILE shows what a model would see.

ferry serve -proto FILE -upstream URL serves the unary methods of a
protobuf service as tools that call its Connect, gRPC (-upstream-protocol
grpc) or gRPC-Web server at -upstream: FILE is a .proto file (its imports
found under -proto-path, by default the directory its package path is
in) or a binary descriptor set (protoc -o, buf build -o); -service names
the service when the file has several. Arguments are checked against the
methods' buf.validate rules before they are sent.

Both are read-only by default, as a database is: -writes adds the tools
that write (POST, PUT, PATCH and DELETE operations; methods not marked
NO_SIDE_EFFECTS). The API's credentials come from the environment:
-upstream-header-env NAME sends the header line "Name: value" that $NAME
holds with every upstream call (repeatable). The MCP client's own
Authorization and cookies never reach the API: its token was issued for
this server, and an API that received it could replay it here.
-upstream-pass-header NAME passes that header of the MCP request on to
the API anyway, for an API that is meant to receive exactly that
credential; only name one knowing the risk. Upstream calls are bounded by
-upstream-timeout and -upstream-max-bytes, follow redirects only within
the upstream's scheme, host and port, and the API's failures reach the
model as refusals it can read ("unavailable: The API did not answer
within 30s; try again later.").
`

// upstreamConfig is the part of ferry serve's command line about a remote
// API.
type upstreamConfig struct {
	openapi, proto   string
	upstream         string
	operations       []string
	toolPrefix       string
	headerEnvs       []string
	passHeaders      []string
	timeout          time.Duration
	maxBytes         int64
	service          string
	protoPaths       []string
	upstreamProtocol string
}

// register adds the flags of a remote API to fs.
func (u *upstreamConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&u.openapi, "openapi", "", "serve the operations of this OpenAPI document (a file or an http(s) URL) as tools calling -upstream")
	fs.StringVar(&u.proto, "proto", "", "serve the unary methods of the service in this .proto file or descriptor set as tools calling -upstream")
	fs.StringVar(&u.upstream, "upstream", "", "the base URL of the API (-openapi) or server (-proto) the tools call")
	fs.Func("operations", "with -openapi: the operations to serve: ids, tags or \"METHOD /path\" patterns, comma-separated, \"!\" to leave out (repeatable)", listFlag(&u.operations))
	fs.StringVar(&u.toolPrefix, "tool-prefix", "", "with -openapi or -proto: put this before every derived tool name")
	fs.Func("upstream-header-env", "send the header line \"Name: value\" held by the environment variable `NAME` with every upstream call (repeatable)", func(v string) error {
		u.headerEnvs = append(u.headerEnvs, strings.TrimSpace(v))
		return nil
	})
	fs.Func("upstream-pass-header", "pass this `header` of the MCP request on to the upstream (the client's token then reaches the API: see above)", listFlag(&u.passHeaders))
	fs.DurationVar(&u.timeout, "upstream-timeout", openapi.DefaultUpstreamTimeout, "bound each upstream call")
	fs.Int64Var(&u.maxBytes, "upstream-max-bytes", 1<<20, "read at most this many bytes of an upstream answer; the tool's result says the rest was cut")
	fs.StringVar(&u.service, "service", "", "with -proto: the service's full name (default: the file's only service)")
	fs.Func("proto-path", "with -proto: a directory imports are found under, as protoc -I (repeatable)", listFlag(&u.protoPaths))
	fs.StringVar(&u.upstreamProtocol, "upstream-protocol", "connect", "with -proto: connect, grpc or grpcweb")
}

// remote reports whether the command line serves a remote API.
func (u *upstreamConfig) remote() bool { return u.openapi != "" || u.proto != "" }

// check returns the usage problem of the remote API's flags, or nil;
// set holds the flags given.
func (u *upstreamConfig) check(c *serveConfig, set map[string]bool) error {
	only := func(names ...string) string {
		for _, n := range names {
			if set[n] {
				return n
			}
		}
		return ""
	}
	switch {
	case u.openapi != "" && u.proto != "":
		return errors.New("-openapi and -proto exclude each other; give one")
	case !u.remote():
		if n := only("upstream", "operations", "tool-prefix", "upstream-header-env", "upstream-pass-header", "upstream-timeout",
			"upstream-max-bytes", "service", "proto-path", "upstream-protocol"); n != "" {
			return fmt.Errorf("-%s goes with -openapi FILE or -proto FILE", n)
		}
		return nil
	case u.upstream == "":
		return errors.New("-openapi and -proto need -upstream URL, the base URL of the API the tools call")
	case c.db != "" || c.dbEnv != "":
		return errors.New("-db and -db-env serve a database: give them, or -openapi or -proto, not both")
	case u.openapi != "" && only("service", "proto-path", "upstream-protocol") != "":
		return fmt.Errorf("-%s goes with -proto, not -openapi", only("service", "proto-path", "upstream-protocol"))
	case u.proto != "" && set["operations"]:
		return errors.New("-operations goes with -openapi; a -proto service's methods are all served")
	case u.timeout <= 0:
		return fmt.Errorf("-upstream-timeout %s: give a duration above 0, such as 30s", u.timeout)
	case u.maxBytes < 1:
		return fmt.Errorf("-upstream-max-bytes %d: give 1 or more", u.maxBytes)
	}
	if n := only("config", "tables", "exclude-tables", "statement-timeout", "db-max-conns"); n != "" {
		return fmt.Errorf("-%s is for -db; it does not apply to -openapi or -proto", n)
	}
	switch u.upstreamProtocol {
	case "connect", "grpc", "grpcweb":
	default:
		return fmt.Errorf("-upstream-protocol %q: give connect, grpc or grpcweb", u.upstreamProtocol)
	}
	return nil
}

// headers reads the upstream headers from the environment: each
// variable holds one "Name: value" line. The error never quotes a value.
func (u *upstreamConfig) headers(getenv func(string) string) (http.Header, error) {
	h := http.Header{}
	for _, name := range u.headerEnvs {
		line := getenv(name)
		if line == "" {
			return nil, serveUsage(fmt.Sprintf("-upstream-header-env %s: $%s is empty or unset; set it to a header line such as \"Authorization: Bearer ...\"", name, name))
		}
		k, v, ok := strings.Cut(line, ":")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" || strings.ContainsAny(k, " \t") {
			return nil, serveUsage(fmt.Sprintf("-upstream-header-env %s: $%s is not a header line \"Name: value\"", name, name))
		}
		h.Add(k, v)
	}
	return h, nil
}
