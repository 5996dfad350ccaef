package protomcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// writeSet writes the test service's FileDescriptorSet to a file, with
// or without its source info, and returns the path.
func writeSet(t *testing.T, withSource bool) string {
	t.Helper()
	set, err := testservice.Compile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !withSource {
		for _, f := range set.File {
			f.SourceCodeInfo = nil
		}
	}
	data, err := proto.Marshal(set)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "shop.binpb")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// listed returns tools/list's tools by name.
func (m *mcpServer) listed(t *testing.T) map[string]map[string]any {
	t.Helper()
	var tools []map[string]any
	for _, tl := range m.client.ListTools(t.Context()) {
		var tool map[string]any
		if err := json.Unmarshal(tl.Raw, &tool); err != nil {
			t.Fatalf("tools/list answered %s: %v", tl.Raw, err)
		}
		tools = append(tools, tool)
	}
	out := map[string]map[string]any{}
	for _, tool := range tools {
		out[tool["name"].(string)] = tool
	}
	return out
}

func TestADescriptorSetFileServesTheSameToolsWithComments(t *testing.T) {
	files, err := protomcp.ReadFiles(writeSet(t, true))
	if err != nil {
		t.Fatal(err)
	}
	sd := mustService(t, files)
	m := newMCPServer()
	if err := protomcp.AddDescribed(m.srv, files, testservice.Service, protomcp.Handler(testservice.Handler(sd, nil)), nil); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	tools := m.listed(t)
	if len(tools) != 3 {
		t.Fatalf("listed %d tools, want 3 (the streaming method left out): %v", len(tools), tools)
	}
	get := tools["get_item"]
	if get["description"] != "GetItem returns an item by its SKU." {
		t.Errorf("description %q", get["description"])
	}
	if a := get["annotations"].(map[string]any); a["readOnlyHint"] != true || a["idempotentHint"] != true {
		t.Errorf("annotations %v", a)
	}
	if a := tools["place_order"]["annotations"].(map[string]any); a["readOnlyHint"] != false || a["destructiveHint"] != true {
		t.Errorf("annotations %v", a)
	}
	if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`); r.IsError || !strings.Contains(r.Text, `"kind":"KIND_BOOK"`) {
		t.Errorf("got %+v", r)
	}
	if r := m.call(t, "get_item", `{"sku":"b"}`); !r.IsError || !strings.Contains(r.Text, "- sku: must be at least 3 characters") {
		t.Errorf("got %+v", r)
	}
}

func TestADescriptorSetWithoutSourceInfoHasNoComments(t *testing.T) {
	files, err := protomcp.ReadFiles(writeSet(t, false))
	if err != nil {
		t.Fatal(err)
	}
	m := newMCPServer()
	if err := protomcp.AddDescribed(m.srv, files, testservice.Service, protomcp.Handler(testservice.Handler(mustService(t, files), nil)), nil); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	if d, _ := m.listed(t)["get_item"]["description"].(string); strings.Contains(d, "returns an item by its SKU") || d == "" {
		t.Errorf("description %q", d)
	}
}

func TestASetWithoutItsImportsTakesThemFromTheLinkedInFiles(t *testing.T) {
	set, err := testservice.Compile(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	only := &descriptorpb.FileDescriptorSet{}
	for _, f := range set.File {
		if strings.HasPrefix(f.GetName(), "shop/") { // the set's own files, none of their linked-in imports
			only.File = append(only.File, f)
		}
	}
	files, err := protomcp.NewFiles(only)
	if err != nil {
		t.Fatal(err)
	}
	mustService(t, files)
	only.File[len(only.File)-1].Dependency = append(only.File[len(only.File)-1].Dependency, "not/there.proto")
	if _, err := protomcp.NewFiles(only); err == nil || !strings.Contains(err.Error(), "not/there.proto") {
		t.Errorf("a missing import: got %v", err)
	}
}

func TestReadFilesRefusesWhatIsNotASet(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.binpb")
	if err := os.WriteFile(path, []byte("not a descriptor set"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := protomcp.ReadFiles(path); err == nil || !strings.Contains(err.Error(), "not a binary FileDescriptorSet") {
		t.Errorf("got %v", err)
	}
	if _, err := protomcp.ReadFiles(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing file: no error")
	}
}

func mustService(t *testing.T, files *protoregistry.Files) protoreflect.ServiceDescriptor {
	t.Helper()
	d, err := files.FindDescriptorByName(testservice.Service)
	if err != nil {
		t.Fatal(err)
	}
	return d.(protoreflect.ServiceDescriptor)
}

// remote serves the test service, and its gRPC reflection, over HTTP/2
// with TLS, so that gRPC and the reflection stream work.
func remote(t *testing.T) (*httptest.Server, *testservice.Calls) {
	t.Helper()
	s := testShop(t)
	calls := new(testservice.Calls)
	mux := http.NewServeMux()
	mux.Handle("/", testservice.Handler(s.sd, calls))
	reflector := grpcreflect.NewReflector(grpcreflect.NamerFunc(func() []string { return []string{string(testservice.Service)} }),
		grpcreflect.WithDescriptorResolver(s.files))
	mux.Handle(grpcreflect.NewHandlerV1(reflector))
	srv := httptest.NewUnstartedServer(mux)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv, calls
}

func TestClientForwardsToARemoteServer(t *testing.T) {
	srv, calls := remote(t)
	s := testShop(t)
	for name, opts := range map[string][]connect.ClientOption{"connect": nil, "grpc": {connect.WithGRPC()}} {
		t.Run(name, func(t *testing.T) {
			m := newMCPServer()
			if err := protomcp.AddService(m.srv, s.spec, protomcp.Client(srv.Client(), srv.URL, opts...), &protomcp.Options{Files: s.files}); err != nil {
				t.Fatal(err)
			}
			m.serve(t)
			before := calls.Load()
			if r := m.call(t, "get_item", `{"sku":"BOOK-1"}`); r.IsError || !strings.Contains(r.Text, `"name":"Item BOOK-1"`) {
				t.Errorf("got %+v", r)
			}
			if r := m.call(t, "get_item", `{"sku":"MISSING"}`); r.Text != "not-found: no item has the SKU MISSING" {
				t.Errorf("got %+v", r)
			}
			r := m.call(t, "fail", `{"code":"failed_precondition","message":"the cart is closed","badRequest":true}`)
			if r.Text != "conflict: the cart is closed:\n- lines[0].sku: no such SKU\n- customer_email: is blocked" {
				t.Errorf("got %q", r.Text)
			}
			if calls.Load()-before != 3 {
				t.Errorf("the remote served %d calls, want 3", calls.Load()-before)
			}
		})
	}
}

func TestReflectionServesTheSameTools(t *testing.T) {
	srv, _ := remote(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	files, err := protomcp.ReflectFiles(ctx, srv.Client(), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := newMCPServer()
	if err := protomcp.AddDescribed(m.srv, files, testservice.Service, protomcp.Client(srv.Client(), srv.URL), nil); err != nil {
		t.Fatal(err)
	}
	m.serve(t)
	if n := len(m.listed(t)); n != 3 {
		t.Errorf("listed %d tools, want 3", n)
	}
	if r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[{"sku":"ABC","quantity":3}]}`); r.IsError || !strings.Contains(r.Text, `"totalCents":"3750"`) {
		t.Errorf("got %+v", r)
	}
	if r := m.call(t, "place_order", `{"customerEmail":"a@example.com","lines":[]}`); !r.IsError || !strings.Contains(r.Text, "- lines: must contain at least 1 item") {
		t.Errorf("the rules travel with reflection: got %+v", r)
	}
}
