package protomcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// DefaultMaxResponseBytes bounds a response read by [Handler] and
// [Client]: a larger one fails the call (ResourceExhausted, a refusal
// "unavailable"), so a runaway response cannot exhaust memory.
const DefaultMaxResponseBytes = 4 << 20

// inProcessBaseURL is the base URL of in-process calls; the handler sees
// requests to /pkg.Service/Method with the MCP request's Host (see
// [inProcess.Do]).
const inProcessBaseURL = "http://localhost"

// Handler returns a [Dispatcher] that calls each method through h, the
// service's Connect handler (or the whole mux serving it, with its HTTP
// middleware), in process: each call is a Connect unary request, POST
// /pkg.Service/Method with a binary protobuf body, handed to h.ServeHTTP
// with the call's context, so the service's interceptors and middleware
// run and see the headers that travel with the call (see [Dispatcher]),
// and the Host of the MCP request ("localhost" over stdio); no socket is
// opened. opts are applied to the Connect client that makes
// the requests, after the package's own (binary codec, the response
// bound): connect.WithInterceptors adds client-side interceptors.
func Handler(h http.Handler, opts ...connect.ClientOption) Dispatcher {
	if h == nil {
		panic("protomcp: Handler needs a handler") //nolint:forbidigo // a programmer error at construction, documented
	}
	// Compressing a response that never leaves the process only costs:
	// the client does not ask for gzip.
	all := append([]connect.ClientOption{connect.WithAcceptCompression("gzip", nil, nil)}, opts...)
	return newConnectDispatcher(&inProcess{h: h, limit: DefaultMaxResponseBytes}, inProcessBaseURL, all)
}

// Client returns a [Dispatcher] that forwards each call to the Connect,
// gRPC or gRPC-Web server at baseURL (such as "https://api.example.com"),
// with httpClient (http.DefaultClient if nil). By default it speaks the
// Connect protocol with binary protobuf; pass connect.WithGRPC() or
// connect.WithGRPCWeb() for the others. Responses are bounded by
// [DefaultMaxResponseBytes] unless opts set connect.WithReadMaxBytes.
//
// The MCP request's Authorization and Cookie do not travel to the server
// unless [Options.Forward] names them: the MCP client's token was issued
// for the MCP server, and the protocol forbids passing it on to another.
// Give the server a credential of its own with [Options.Header] or a
// connect.WithInterceptors client interceptor.
func Client(httpClient connect.HTTPClient, baseURL string, opts ...connect.ClientOption) Dispatcher {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	d := newConnectDispatcher(httpClient, strings.TrimRight(baseURL, "/"), opts)
	d.remote = true
	return d
}

// connectDispatcher calls through a Connect client per method, built on
// first use and kept (one per method of the registered services, so the
// set is bounded).
type connectDispatcher struct {
	http    connect.HTTPClient
	baseURL string
	opts    []connect.ClientOption
	remote  bool // the calls leave the process: credentials stay behind

	mu      sync.RWMutex // guards clients
	clients map[protoreflect.FullName]*connect.Client[message, message]
}

func newConnectDispatcher(c connect.HTTPClient, baseURL string, opts []connect.ClientOption) *connectDispatcher {
	return &connectDispatcher{http: c, baseURL: baseURL, opts: opts, clients: map[protoreflect.FullName]*connect.Client[message, message]{}}
}

// message carries a request or response of any type through the generic
// Connect client; [binaryCodec] marshals it.
type message struct{ m proto.Message }

// Invoke calls method with req through the Connect client of the method.
func (d *connectDispatcher) Invoke(ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, header http.Header) (proto.Message, error) {
	c := d.client(method)
	r := connect.NewRequest(&message{m: req})
	for k, vs := range header {
		r.Header()[k] = vs
	}
	res, err := c.CallUnary(ctx, r)
	if err != nil {
		return nil, clientSide(err)
	}
	return res.Msg.m, nil
}

// clientSide replaces the text of an error the Connect client made up
// itself, rather than read from the server, when its code is one the
// model reads (see [RefusalCode]): "dial tcp 10.0.0.7:8080: connection
// refused" names the network behind the tool. The code is kept, and the
// cause stays in the chain for the log. An error the server sent is
// returned as it is: its message is the service's own sentence.
func clientSide(err error) error {
	var ce *connect.Error
	if !errors.As(err, &ce) || connect.IsWireError(ce) {
		return err
	}
	var msg string
	switch ce.Code() {
	case connect.CodeUnavailable:
		msg = "the service cannot be reached"
	case connect.CodeDeadlineExceeded:
		msg = "the service did not answer in time"
	case connect.CodeResourceExhausted:
		msg = "the service's answer is too large"
	default:
		if _, mapped := RefusalCode(ce.Code()); !mapped {
			return err // masked and logged whole
		}
		msg = ce.Code().String()
	}
	return &clientError{shown: connect.NewError(ce.Code(), errors.New(msg)), cause: err}
}

// clientError is an error of the Connect client: shown is what the model
// reads, cause what happened.
type clientError struct {
	shown *connect.Error
	cause error
}

func (e *clientError) Error() string { return e.cause.Error() }

// Unwrap returns the error shown first, so that errors.As finds it.
func (e *clientError) Unwrap() []error { return []error{e.shown, e.cause} }

func (d *connectDispatcher) client(md protoreflect.MethodDescriptor) *connect.Client[message, message] {
	d.mu.RLock()
	c, ok := d.clients[md.FullName()]
	d.mu.RUnlock()
	if ok {
		return c
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if c, ok := d.clients[md.FullName()]; ok {
		return c
	}
	out := messageType(protoregistry.GlobalTypes, md.Output())
	opts := append([]connect.ClientOption{
		connect.WithCodec(binaryCodec{}),
		connect.WithSchema(md),
		connect.WithReadMaxBytes(DefaultMaxResponseBytes),
		connect.WithResponseInitializer(func(_ connect.Spec, msg any) error {
			msg.(*message).m = out.New().Interface()
			return nil
		}),
	}, d.opts...)
	if md.Options() != nil {
		if idem := idempotency(md); idem != connect.IdempotencyUnknown {
			opts = append(opts, connect.WithIdempotency(idem))
		}
	}
	procedure := "/" + string(md.Parent().FullName()) + "/" + string(md.Name())
	c = connect.NewClient[message, message](d.http, d.baseURL+procedure, opts...)
	d.clients[md.FullName()] = c
	return c
}

// binaryCodec is the Connect "proto" codec over [message].
type binaryCodec struct{}

func (binaryCodec) Name() string { return "proto" }

// Marshal marshals a *message, or a proto.Message of Connect's own (the
// gRPC status, which the protocol marshals with the "proto" codec).
func (binaryCodec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *message:
		if m.m != nil {
			return marshalBinary.Marshal(m.m)
		}
	case proto.Message:
		return proto.Marshal(m)
	}
	return nil, fmt.Errorf("protomcp: cannot marshal %T", v)
}

// Unmarshal unmarshals into a *message or a proto.Message of Connect's own.
func (binaryCodec) Unmarshal(data []byte, v any) error {
	switch m := v.(type) {
	case *message:
		if m.m != nil {
			return unmarshalBinary.Unmarshal(data, m.m)
		}
	case proto.Message:
		return proto.Unmarshal(data, m)
	}
	return fmt.Errorf("protomcp: cannot unmarshal into %T", v)
}

// inProcess is an HTTP client that serves each request with a handler in
// the same process, keeping at most limit bytes of the response body.
type inProcess struct {
	h     http.Handler
	limit int
}

func (c *inProcess) Do(r *http.Request) (*http.Response, error) {
	w := &recorder{header: http.Header{}, limit: c.limit}
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = r.URL.RequestURI()
	r.RemoteAddr = "in-process"
	// The Host the MCP handler checked against its allowed hosts, so that
	// the service's host checks see what the caller sent; "localhost"
	// over stdio.
	if ci, ok := ferry.CallInfoFromContext(r.Context()); ok && ci.Host != "" {
		r.Host = ci.Host
	}
	c.h.ServeHTTP(w, r)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.cut {
		return nil, connect.NewError(connect.CodeResourceExhausted, fmt.Errorf("the response is larger than %d bytes", c.limit))
	}
	return &http.Response{Status: http.StatusText(w.status), StatusCode: w.status, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: w.header, Body: io.NopCloser(&w.body), ContentLength: int64(w.body.Len()), Request: r}, nil
}

// recorder is the response writer of an in-process call.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	limit  int
	cut    bool
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

var errTooLarge = errors.New("protomcp: the response is too large")

func (w *recorder) Write(p []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len()+len(p) > w.limit {
		w.cut = true
		return 0, errTooLarge
	}
	return w.body.Write(p)
}

// Flush lets handlers that flush write to the recorder.
func (w *recorder) Flush() {}

// The binary codec's options: proto3 has no required fields to check, and
// checking a dynamic message for them allocates.
var (
	marshalBinary   = proto.MarshalOptions{AllowPartial: true}
	unmarshalBinary = proto.UnmarshalOptions{AllowPartial: true}
)
