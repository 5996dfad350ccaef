package protomcp_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp"
	"github.com/ferry-mcp/ferry/protomcp/internal/testservice"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// callLines opens a session over stdio-style lines, sends each tools/call
// (name and arguments) and returns the answers' lines in the order of the
// calls.
func callLines(srv *ferry.Server, calls ...string) []string {
	var in strings.Builder
	in.WriteString(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	for i := 0; i+1 < len(calls); i += 2 {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`+"\n", i/2+1, calls[i], calls[i+1])
	}
	var out bytes.Buffer
	if err := srv.Run(context.Background(), &ferry.IOTransport{Reader: strings.NewReader(in.String()), Writer: &out}); err != nil {
		return []string{err.Error()}
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")[1:]
	slices.Sort(lines) // calls run concurrently; order the answers by id (fewer than 10)
	return lines
}

// A service's methods served as tools, each call going in process through
// the service's own Connect handler.
func ExampleAddService() {
	ctx := context.Background()
	files, sd, err := testservice.Files(ctx) // generated code would use protoregistry.GlobalFiles
	if err != nil {
		log.Fatal(err)
	}
	spec, err := protomcp.Describe(sd, nil) // generated code has this spec as a variable
	if err != nil {
		log.Fatal(err)
	}
	api := testservice.Handler(sd, nil) // the service's Connect handler
	srv := ferry.NewServer("shop", "1.0.0", nil)
	if err := protomcp.AddService(srv, spec, protomcp.Handler(api), &protomcp.Options{Files: files}); err != nil {
		log.Fatal(err)
	}
	for _, line := range callLines(srv,
		"get_item", `{"sku":"BOOK-1"}`,
		"get_item", `{"sku":"b","color":"red"}`,
		"get_item", `{"sku":"MISSING"}`) {
		fmt.Println(line)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sku\":\"BOOK-1\",\"name\":\"Item BOOK-1\",\"priceCents\":\"1250\",\"tags\":[\"new\"],\"kind\":\"KIND_BOOK\"}"}],"structuredContent":{"sku":"BOOK-1","name":"Item BOOK-1","priceCents":"1250","tags":["new"],"kind":"KIND_BOOK"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"invalid arguments:\n- color: is not allowed: unknown property \"color\"; known properties: sku\n- sku: must be at least 3 characters, got 1\n- sku: does not match regex pattern `^[A-Z0-9-]+$`, got \"b\""}],"isError":true}}
	// {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"not-found: no item has the SKU MISSING"}],"isError":true}}
}

// The service's interceptors run for tool calls, and see the headers that
// travel with them; an interceptor's error is the model's refusal.
func ExampleHandler() {
	ctx := context.Background()
	files, sd, err := testservice.Files(ctx)
	if err != nil {
		log.Fatal(err)
	}
	readOnly := connect.UnaryInterceptorFunc(func(next connect.UnaryFunc) connect.UnaryFunc {
		return func(ctx context.Context, req connect.AnyRequest) (connect.AnyResponse, error) {
			if req.Spec().IdempotencyLevel != connect.IdempotencyNoSideEffects {
				return nil, connect.NewError(connect.CodePermissionDenied, fmt.Errorf("%s may not be called by %s", req.Spec().Procedure, req.Header().Get("Mcp-Tool")))
			}
			return next(ctx, req)
		}
	})
	api := testservice.Handler(sd, nil, connect.WithInterceptors(readOnly))
	srv := ferry.NewServer("shop", "1.0.0", nil)
	if err := protomcp.AddDescribed(srv, files, testservice.Service, protomcp.Handler(api), nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(callLines(srv, "place_order", `{"customerEmail":"ada@example.com","lines":[{"sku":"BOOK-1","quantity":1}]}`)[0])
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"forbidden: /shop.v1.ShopService/PlaceOrder may not be called by place_order"}],"isError":true}}
}

// Tools forwarding to a remote Connect server.
func ExampleClient() {
	ctx := context.Background()
	files, sd, err := testservice.Files(ctx)
	if err != nil {
		log.Fatal(err)
	}
	remote := httptest.NewServer(testservice.Handler(sd, nil))
	defer remote.Close()
	srv := ferry.NewServer("shop", "1.0.0", nil)
	if err := protomcp.AddDescribed(srv, files, testservice.Service, protomcp.Client(remote.Client(), remote.URL), nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(callLines(srv, "fail", `{"code":"already_exists","message":"the order exists"}`)[0])
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"conflict: the order exists"}],"isError":true}}
}

// A descriptor set file, as `protoc --include_imports --include_source_info
// -o shop.binpb` or `buf build -o shop.binpb` writes it, served without
// generated code.
func ExampleReadFiles() {
	set, err := testservice.Compile(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	data, err := proto.Marshal(set)
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "protomcp-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "shop.binpb")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		log.Fatal(err)
	}

	files, err := protomcp.ReadFiles(path)
	if err != nil {
		log.Fatal(err)
	}
	d, err := files.FindDescriptorByName(testservice.Service)
	if err != nil {
		log.Fatal(err)
	}
	spec, err := protomcp.Describe(d.(protoreflect.ServiceDescriptor), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range spec.Tools {
		fmt.Printf("%s: %s\n", t.Name, t.Description)
	}
	// Output:
	// get_item: GetItem returns an item by its SKU.
	// place_order: PlaceOrder places an order for some lines.
	// fail: Fail answers with the Connect error it is asked for.
}

// The descriptors of a running gRPC server, from its reflection service.
func ExampleReflectFiles() {
	ctx := context.Background()
	files, sd, err := testservice.Files(ctx)
	if err != nil {
		log.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/", testservice.Handler(sd, nil))
	mux.Handle(grpcreflect.NewHandlerV1(grpcreflect.NewReflector(
		grpcreflect.NamerFunc(func() []string { return []string{string(testservice.Service)} }), grpcreflect.WithDescriptorResolver(files))))
	remote := httptest.NewUnstartedServer(mux)
	remote.EnableHTTP2 = true // reflection is a bidirectional stream
	remote.StartTLS()
	defer remote.Close()

	reflected, err := protomcp.ReflectFiles(ctx, remote.Client(), remote.URL)
	if err != nil {
		log.Fatal(err)
	}
	srv := ferry.NewServer("shop", "1.0.0", nil)
	if err := protomcp.AddDescribed(srv, reflected, testservice.Service, protomcp.Client(remote.Client(), remote.URL, connect.WithGRPC()), nil); err != nil {
		log.Fatal(err)
	}
	fmt.Println(callLines(srv, "get_item", `{"sku":"X"}`)[0])
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"invalid arguments:\n- sku: must be at least 3 characters, got 1"}],"isError":true}}
}

// NewFiles builds the registry of a descriptor set held in memory.
func ExampleNewFiles() {
	set, err := testservice.Compile(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	files, err := protomcp.NewFiles(set)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(files.NumFilesByPackage("shop.v1")) // shop.proto and rules.proto
	// Output:
	// 2
}

// The refusal each Connect code becomes.
func ExampleRefusalCode() {
	for _, c := range []connect.Code{connect.CodeNotFound, connect.CodeAborted, connect.CodeUnauthenticated, connect.CodeOutOfRange, connect.CodeDeadlineExceeded, connect.CodeInternal} {
		code, ok := protomcp.RefusalCode(c)
		if !ok {
			fmt.Printf("%s: masked\n", c)
			continue
		}
		fmt.Printf("%s: %s\n", c, code)
	}
	// Output:
	// not_found: not-found
	// aborted: conflict
	// unauthenticated: forbidden
	// out_of_range: invalid
	// deadline_exceeded: unavailable
	// internal: masked
}

// A dispatcher written by hand: here a stand-in that answers every
// GetItem itself, as a test double of the service would.
func ExampleDispatcherFunc() {
	ctx := context.Background()
	files, _, err := testservice.Files(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fake := protomcp.DispatcherFunc(func(_ context.Context, md protoreflect.MethodDescriptor, req proto.Message, _ http.Header) (proto.Message, error) {
		if md.Name() != "GetItem" {
			return nil, connect.NewError(connect.CodeUnavailable, errors.New("only GetItem is faked"))
		}
		out := dynamicpb.NewMessage(md.Output())
		out.Set(md.Output().Fields().ByName("name"), protoreflect.ValueOfString("a fake item"))
		return out, nil
	})
	srv := ferry.NewServer("shop", "1.0.0", nil)
	if err := protomcp.AddDescribed(srv, files, testservice.Service, fake, nil); err != nil {
		log.Fatal(err)
	}
	for _, line := range callLines(srv, "get_item", `{"sku":"ABC"}`, "fail", `{}`) {
		fmt.Println(line)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"name\":\"a fake item\"}"}],"structuredContent":{"name":"a fake item"}}}
	// {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"unavailable: only GetItem is faked"}],"isError":true}}
}

// AddDescribed serves a service from its descriptors alone, with dynamic
// messages; Options.Describe puts a prefix on its tools' names.
func ExampleAddDescribed() {
	ctx := context.Background()
	files, sd, err := testservice.Files(ctx) // or NewFiles, ReadFiles, ReflectFiles
	if err != nil {
		log.Fatal(err)
	}
	srv := ferry.NewServer("shop", "1.0.0", nil)
	err = protomcp.AddDescribed(srv, files, testservice.Service, protomcp.Handler(testservice.Handler(sd, nil)),
		&protomcp.Options{Describe: protomcp.DescribeOptions{Prefix: "shop_"}})
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range callLines(srv, "shop_get_item", `{"sku":"PEN-2"}`) {
		fmt.Println(line)
	}
	// Output:
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"sku\":\"PEN-2\",\"name\":\"Item PEN-2\",\"priceCents\":\"1250\",\"tags\":[\"new\"],\"kind\":\"KIND_BOOK\"}"}],"structuredContent":{"sku":"PEN-2","name":"Item PEN-2","priceCents":"1250","tags":["new"],"kind":"KIND_BOOK"}}}
}
