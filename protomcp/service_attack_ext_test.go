package protomcp_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"github.com/ferry-mcp/ferry/schema"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// A request of many bad items is refused with a bounded list: the first
// schema.MaxErrors problems and one line counting the rest, as the root's
// validator answers, whether the decoder or protovalidate finds them.
func TestManyBadItemsGiveABoundedRefusal(t *testing.T) {
	m := newShopServer(t, nil)
	const n = 20000
	for name, item := range map[string]string{
		"decoding":   `{"sku":7,"quantity":1}`,
		"validation": `{"sku":"ABC","quantity":0}`,
	} {
		args := `{"customerEmail":"a@example.com","lines":[` + strings.TrimSuffix(strings.Repeat(item+",", n), ",") + `]}`
		r := m.call(t, "place_order", args)
		if !r.IsError {
			t.Fatalf("%s: got %+v", name, r)
		}
		lines := strings.Count(r.Text, "\n- ")
		if lines != schema.MaxErrors+1 {
			t.Errorf("%s: the refusal has %d lines, want %d", name, lines, schema.MaxErrors+1)
		}
		if want := "- and 19900 more violations, not listed"; !strings.HasSuffix(r.Text, want) {
			t.Errorf("%s: the refusal ends %q, want %q", name, r.Text[max(0, len(r.Text)-80):], want)
		}
	}
	if m.calls.Load() != 0 {
		t.Errorf("the implementation ran")
	}
}

// The MCP client's token and cookies do not travel to a remote server
// unless Options.Forward names them (no token passthrough); the trace
// context does.
func TestClientKeepsTheCallersCredentials(t *testing.T) {
	s := testShop(t)
	seen := make(chan http.Header, 1)
	mux := http.NewServeMux()
	svc := testservice.Handler(s.sd, new(testservice.Calls))
	mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Clone()
		svc.ServeHTTP(w, r)
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	const trace = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	for _, forward := range [][]string{nil, {"Authorization", "Cookie"}} {
		m := newMCPServer()
		if err := protomcp.AddService(m.srv, s.spec, protomcp.Client(srv.Client(), srv.URL), &protomcp.Options{Files: s.files, Forward: forward}); err != nil {
			t.Fatal(err)
		}
		m.serve(t)
		if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`, "Authorization", "Bearer for-the-mcp-server", "Cookie", "sid=1", "Traceparent", trace); r.IsError {
			t.Fatalf("got %+v", r)
		}
		h := <-seen
		wantAuth, wantCookie := "", ""
		if forward != nil {
			wantAuth, wantCookie = "Bearer for-the-mcp-server", "sid=1"
		}
		if h.Get("Authorization") != wantAuth || h.Get("Cookie") != wantCookie || h.Get("Traceparent") != trace {
			t.Errorf("Forward %v: the remote saw Authorization %q, Cookie %q, Traceparent %q; want %q, %q, %q",
				forward, h.Get("Authorization"), h.Get("Cookie"), h.Get("Traceparent"), wantAuth, wantCookie, trace)
		}
	}
}

// Headers that frame or steer the call (its encoding, its deadline, its
// protocol) cannot be forwarded from the MCP request or fixed.
func TestHeadersThatSteerTheCallAreRefused(t *testing.T) {
	s := testShop(t)
	for _, name := range []string{"Connect-Timeout-Ms", "Grpc-Timeout", "Content-Encoding", "Connect-Content-Encoding", "Accept-Encoding", "Trailer", "Upgrade", "Expect", "Te"} {
		for _, o := range []protomcp.Options{{Files: s.files, Forward: []string{name}}, {Files: s.files, Header: http.Header{name: {"x"}}}} {
			err := protomcp.AddService(newMCPServer().srv, s.spec, protomcp.Handler(http.NotFoundHandler()), &o)
			if err == nil || !strings.Contains(err.Error(), strconv.Quote(name)) {
				t.Errorf("%s: got %v", name, err)
			}
		}
	}
}

// An error the client makes up (the server cannot be reached) keeps its
// code but not its text, which names the server's address.
func TestAnUnreachableServerIsUnavailableWithoutItsAddress(t *testing.T) {
	s := testShop(t)
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, s.spec, protomcp.Client(nil, url), &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`)
	if !r.IsError || r.Text != "unavailable: the service cannot be reached" {
		t.Errorf("got %+v", r)
	}
	if strings.Contains(r.Text, strings.TrimPrefix(url, "http://")) {
		t.Errorf("the refusal names the server: %q", r.Text)
	}
}

// A service's refusal is repeated to the model bounded: a long status
// message is cut, and a BadRequest of many violations lists the first
// schema.MaxErrors and counts the rest.
func TestAHugeRefusalIsBounded(t *testing.T) {
	s := testShop(t)
	br := &errdetails.BadRequest{}
	for i := range 5000 {
		br.FieldViolations = append(br.FieldViolations, &errdetails.BadRequest_FieldViolation{Field: "lines[" + strconv.Itoa(i) + "]", Description: strings.Repeat("d", 3000)})
	}
	detail, err := connect.NewErrorDetail(br)
	if err != nil {
		t.Fatal(err)
	}
	d := protomcp.DispatcherFunc(func(context.Context, protoreflect.MethodDescriptor, proto.Message, http.Header) (proto.Message, error) {
		ce := connect.NewError(connect.CodeInvalidArgument, errors.New(strings.Repeat("é", 1<<20)))
		ce.AddDetail(detail)
		return nil, ce
	})
	m := newMCPServer()
	if err := protomcp.AddService(m.srv, s.spec, d, &protomcp.Options{Files: s.files}); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	r := m.call(t, "get_item", `{"sku":"BOOK-1"}`)
	if !r.IsError || len(r.Text) > 400<<10 {
		t.Fatalf("the refusal is %d bytes", len(r.Text))
	}
	lines := strings.Split(r.Text, "\n- ")
	if want := "invalid: " + strings.Repeat("é", 1024) + "…:"; lines[0] != want {
		t.Errorf("the sentence is %d bytes, want %d", len(lines[0]), len(want))
	}
	if len(lines) != schema.MaxErrors+2 || lines[len(lines)-1] != "and 4900 more field violations, not listed" {
		t.Errorf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
}

// A descriptor set of too many files is refused before it is read: a
// chain of tiny files, each importing the next, would otherwise recurse
// once per file.
func TestADescriptorSetOfTooManyFilesIsRefused(t *testing.T) {
	set := &descriptorpb.FileDescriptorSet{}
	for i := range protomcp.MaxDescriptorFiles + 1 {
		f := &descriptorpb.FileDescriptorProto{Name: proto.String("f" + strconv.Itoa(i) + ".proto")}
		if i > 0 {
			f.Dependency = []string{"f" + strconv.Itoa(i-1) + ".proto"}
		}
		set.File = append(set.File, f)
	}
	_, err := protomcp.NewFiles(set)
	if want := "protomcp: the descriptor set holds 65537 files, more than 65536"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

// A reflection service that answers with more descriptors than the bound
// is refused, whether in one message or in many.
func TestReflectionFromAHugeServerIsBounded(t *testing.T) {
	defer protomcp.SetReflectLimit(1 << 20)()
	big := &descriptorpb.FileDescriptorProto{
		Name: proto.String("big/v1/big.proto"), Package: proto.String("big.v1"), Syntax: proto.String("proto3"),
		MessageType: []*descriptorpb.DescriptorProto{{Name: proto.String("Req")}},
		Service: []*descriptorpb.ServiceDescriptorProto{{Name: proto.String("Big"), Method: []*descriptorpb.MethodDescriptorProto{
			{Name: proto.String("Do"), InputType: proto.String(".big.v1.Req"), OutputType: proto.String(".big.v1.Req")}}}},
		SourceCodeInfo: &descriptorpb.SourceCodeInfo{Location: []*descriptorpb.SourceCodeInfo_Location{
			{Path: []int32{6, 0}, Span: []int32{0, 0, 1}, LeadingComments: proto.String(strings.Repeat("x", 2<<20))}}},
	}
	files, err := protodesc.NewFiles(&descriptorpb.FileDescriptorSet{File: []*descriptorpb.FileDescriptorProto{big}})
	if err != nil {
		t.Fatal(err)
	}
	reflector := grpcreflect.NewReflector(grpcreflect.NamerFunc(func() []string { return []string{"big.v1.Big"} }), grpcreflect.WithDescriptorResolver(files))
	mux := http.NewServeMux()
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	_, err = protomcp.ReflectFiles(t.Context(), srv.Client(), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "protomcp: reflecting big.v1.Big: resource_exhausted") {
		t.Errorf("got %v", err)
	}
}

// Nothing a model writes in the arguments becomes a header of the call:
// the headers are the tool's name, the session and what the MCP request
// and the options carry.
func TestArgumentsCannotSetAHeader(t *testing.T) {
	got := make(chan http.Header, 2)
	interceptor := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			got <- req.Header().Clone()
			return next(ctx, req)
		}
	})
	m := newShopServer(t, &protomcp.Options{Forward: []string{"X-Tenant"}}, connect.WithInterceptors(interceptor))
	args := `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":1}],"labels":{"X-Tenant":"evil","Mcp-Tool":"other","Authorization":"Bearer stolen"},` +
		`"note":"x\r\nX-Injected: 1\r\nAuthorization: Bearer stolen"}`
	if r := m.call(t, "place_order", args); r.IsError {
		t.Fatalf("got %+v", r)
	}
	h := <-got
	if h.Get("X-Injected") != "" || h.Get("X-Tenant") != "" || h.Get("Authorization") != "" || h.Get("Mcp-Tool") != "place_order" {
		t.Errorf("the service saw the headers %v", h)
	}
}
