package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"connectrpc.com/connect"
	"github.com/bufbuild/protocompile"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// buildProto makes the server of a protobuf service's unary methods, as
// tools calling its server at -upstream, checked, saying on stderr what
// it serves.
func (s *server) buildProto(ctx context.Context) (*ferry.Server, error) {
	start := time.Now()
	u := &s.cfg.remote
	header, err := u.headers(s.env.getenv)
	if err != nil {
		return nil, err
	}
	files, err := readProto(ctx, u.proto, u.protoPaths)
	if err != nil {
		return nil, fmt.Errorf("-proto %s: %s", u.proto, joinLines(err))
	}
	service, err := pickService(files, u.proto, u.service)
	if err != nil {
		return nil, err
	}
	d, err := u.connectClient()
	if err != nil {
		return nil, err
	}
	srv := ferry.NewServer("ferry-serve", version(), s.remoteOptions(string(service), "The methods of "+string(service)+" as tools."))
	opts := &protomcp.Options{Header: header, Forward: u.passHeaders, Describe: protomcp.DescribeOptions{Prefix: u.toolPrefix}}
	if err := protomcp.AddDescribed(srv, files, service, d, opts); err != nil {
		return nil, fmt.Errorf("-proto %s: %s", u.proto, joinLines(err))
	}
	if err := srv.Check(); err != nil {
		return nil, fmt.Errorf("the service's methods cannot be served: %s", joinLines(err))
	}
	s.say("serving %s from %s over %s", service, u.upstream, u.upstreamProtocol)
	s.sayServed(srv, start)
	return srv, nil
}

// connectClient is the dispatcher that calls the upstream server: bounded
// in time and size, following no redirect.
func (u *upstreamConfig) connectClient() (protomcp.Dispatcher, error) {
	if !strings.HasPrefix(u.upstream, "http://") && !strings.HasPrefix(u.upstream, "https://") {
		return nil, serveUsage(fmt.Sprintf("-upstream %q: want an http:// or https:// URL", redactedURL(u.upstream)))
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = nil
	t.ResponseHeaderTimeout = u.timeout
	var opts []connect.ClientOption
	switch u.upstreamProtocol {
	case "grpc":
		opts = append(opts, connect.WithGRPC())
		// gRPC needs HTTP/2: over TLS as negotiated, over http:// as h2c.
		t.Protocols = new(http.Protocols)
		t.Protocols.SetHTTP2(true)
		t.Protocols.SetUnencryptedHTTP2(strings.HasPrefix(u.upstream, "http://"))
	case "grpcweb":
		opts = append(opts, connect.WithGRPCWeb())
	}
	opts = append(opts, connect.WithReadMaxBytes(int(min(u.maxBytes, 1<<30))))
	c := &http.Client{Transport: t, Timeout: u.timeout, CheckRedirect: func(*http.Request, []*http.Request) error {
		return http.ErrUseLastResponse
	}}
	return protomcp.Client(c, u.upstream, opts...), nil
}

// readProto reads the files of a .proto file, compiled with its imports
// (found under importPaths, or the directory its package path is in; the
// well-known types, buf/validate and ferry/v1 are built in), or of a
// binary descriptor set.
func readProto(ctx context.Context, path string, importPaths []string) (*protoregistry.Files, error) {
	if !strings.EqualFold(filepath.Ext(path), ".proto") {
		return protomcp.ReadFiles(path)
	}
	src, err := os.ReadFile(path) //nolint:gosec // the operator's own file
	if err != nil {
		return nil, err
	}
	root, name := importRoot(path, src)
	if len(importPaths) == 0 {
		importPaths = []string{root}
	} else if rel, ok := relativeTo(path, importPaths); ok {
		name = rel
	}
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(protocompile.CompositeResolver{
			&protocompile.SourceResolver{ImportPaths: importPaths},
			protocompile.ResolverFunc(func(p string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(p)
				return protocompile.SearchResult{Desc: fd}, err
			}),
		}),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	compiled, err := c.Compile(ctx, name)
	if err != nil {
		return nil, err
	}
	fds := make([]protoreflect.FileDescriptor, len(compiled))
	for i, fd := range compiled {
		fds[i] = fd
	}
	return protomcp.FilesOf(fds...)
}

var protoPackage = regexp.MustCompile(`(?m)^\s*package\s+([A-Za-z_][\w.]*)\s*;`)

// importRoot returns the directory a .proto file's imports are found
// under, and its name there: the directory its package path is in
// (proto/ for proto/weather/v1/weather.proto of package weather.v1), or
// its own directory.
func importRoot(path string, src []byte) (root, name string) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	m := protoPackage.FindSubmatch(src)
	if m == nil {
		return dir, base
	}
	pkgDir := filepath.FromSlash(strings.ReplaceAll(string(m[1]), ".", "/"))
	if prefix, ok := strings.CutSuffix(filepath.Clean(dir), string(filepath.Separator)+pkgDir); ok {
		return prefix, filepath.ToSlash(filepath.Join(pkgDir, base))
	}
	if filepath.Clean(dir) == pkgDir {
		return ".", filepath.ToSlash(filepath.Join(pkgDir, base))
	}
	return dir, base
}

// relativeTo returns path's name under the first import path holding it.
func relativeTo(path string, importPaths []string) (string, bool) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	for _, p := range importPaths {
		ap, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(ap, abs); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel), true
		}
	}
	return "", false
}

// pickService returns the named service, or the only service the files
// define outside the built-in ones.
func pickService(files *protoregistry.Files, path, name string) (protoreflect.FullName, error) {
	if name != "" {
		return protoreflect.FullName(name), nil
	}
	var found []protoreflect.FullName
	files.RangeFiles(func(fd protoreflect.FileDescriptor) bool {
		if _, err := protoregistry.GlobalFiles.FindFileByPath(fd.Path()); err == nil {
			return true // linked in: a dependency, not the served file
		}
		for i := range fd.Services().Len() {
			found = append(found, fd.Services().Get(i).FullName())
		}
		return true
	})
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", fmt.Errorf("-proto %s defines no service", path)
	}
	names := make([]string, len(found))
	for i, f := range found {
		names[i] = string(f)
	}
	return "", serveUsage(fmt.Sprintf("-proto %s defines %d services (%s): name one with -service", path, len(found), strings.Join(names, ", ")))
}
