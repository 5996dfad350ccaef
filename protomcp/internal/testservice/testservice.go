// Package testservice is a protobuf service compiled at run time from its
// .proto text, with a Connect handler built on dynamic messages, for the
// tests, benchmarks and the end-to-end fixture of package protomcp. It
// needs no generated code.
package testservice

import (
	"context"
	_ "embed" // the .proto text
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"

	"connectrpc.com/connect"
	"github.com/bufbuild/protocompile"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"

	_ "buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate" // registers buf/validate/validate.proto
	_ "github.com/ferry-mcp/ferry/protomcp/ferrypb/v1"                          // registers ferry/v1/options.proto
	_ "google.golang.org/genproto/googleapis/api/annotations"                   // registers google/api/field_behavior.proto
)

var (
	//go:embed shop.proto
	shopProto string
	//go:embed rules.proto
	rulesProto string
)

// Service is the full name of the test service.
const Service protoreflect.FullName = "shop.v1.ShopService"

// Path is the test .proto file's path.
const Path = "shop/v1/shop.proto"

// Compile compiles the test .proto with its comments and returns it as a
// FileDescriptorSet holding it and every file it imports, as
// `protoc --include_imports --include_source_info` writes one.
func Compile(ctx context.Context) (*descriptorpb.FileDescriptorSet, error) {
	c := protocompile.Compiler{
		Resolver: protocompile.CompositeResolver{
			&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{Path: shopProto, "shop/v1/rules.proto": rulesProto})},
			protocompile.ResolverFunc(func(path string) (protocompile.SearchResult, error) {
				fd, err := protoregistry.GlobalFiles.FindFileByPath(path)
				if err != nil {
					return protocompile.SearchResult{}, err
				}
				return protocompile.SearchResult{Desc: fd}, nil
			}),
		},
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(ctx, Path)
	if err != nil {
		return nil, fmt.Errorf("testservice: compiling %s: %w", Path, err)
	}
	return protoset.Of(files[0]), nil
}

// Files compiles the test .proto and returns the registry of its files.
func Files(ctx context.Context) (*protoregistry.Files, protoreflect.ServiceDescriptor, error) {
	set, err := Compile(ctx)
	if err != nil {
		return nil, nil, err
	}
	files, err := protodesc.NewFiles(set)
	if err != nil {
		return nil, nil, fmt.Errorf("testservice: %w", err)
	}
	d, err := files.FindDescriptorByName(Service)
	if err != nil {
		return nil, nil, fmt.Errorf("testservice: %w", err)
	}
	return files, d.(protoreflect.ServiceDescriptor), nil
}

// Calls counts the calls the handler's implementation served.
type Calls struct{ n atomic.Int64 }

// Load returns the count.
func (c *Calls) Load() int64 { return c.n.Load() }

// Handler returns the service's Connect handler, mounted at its path
// prefix, built on dynamic messages; opts (interceptors) apply to every
// method. calls, if not nil, counts the implementation's calls.
func Handler(sd protoreflect.ServiceDescriptor, calls *Calls, opts ...connect.HandlerOption) http.Handler {
	mux := http.NewServeMux()
	methods := sd.Methods()
	for i := range methods.Len() {
		md := methods.Get(i)
		if md.IsStreamingClient() || md.IsStreamingServer() {
			continue
		}
		impl := implementations[md.Name()]
		procedure := "/" + string(sd.FullName()) + "/" + string(md.Name())
		all := append([]connect.HandlerOption{
			connect.WithSchema(md),
			connect.WithRequestInitializer(func(_ connect.Spec, msg any) error {
				*(msg.(*dynamicpb.Message)) = *dynamicpb.NewMessage(md.Input())
				return nil
			}),
		}, opts...)
		mux.Handle(procedure, connect.NewUnaryHandler(procedure,
			func(ctx context.Context, req *connect.Request[dynamicpb.Message]) (*connect.Response[dynamicpb.Message], error) {
				if calls != nil {
					calls.n.Add(1)
				}
				out := dynamicpb.NewMessage(md.Output())
				if err := impl(ctx, req.Msg, out); err != nil {
					return nil, err
				}
				return connect.NewResponse(out), nil
			}, all...))
	}
	return mux
}

type implementation func(ctx context.Context, in, out *dynamicpb.Message) error

var implementations = map[protoreflect.Name]implementation{
	"GetItem":    getItem,
	"PlaceOrder": placeOrder,
	"Fail":       fail,
}

func field(m *dynamicpb.Message, name protoreflect.Name) protoreflect.FieldDescriptor {
	return m.Descriptor().Fields().ByName(name)
}

func getItem(_ context.Context, in, out *dynamicpb.Message) error {
	sku := in.Get(field(in, "sku")).String()
	if sku == "MISSING" {
		return connect.NewError(connect.CodeNotFound, fmt.Errorf("no item has the SKU %s", sku))
	}
	out.Set(field(out, "sku"), protoreflect.ValueOfString(sku))
	out.Set(field(out, "name"), protoreflect.ValueOfString("Item "+sku))
	out.Set(field(out, "price_cents"), protoreflect.ValueOfInt64(1250))
	tags := out.Mutable(field(out, "tags")).List()
	tags.Append(protoreflect.ValueOfString("new"))
	out.Set(field(out, "kind"), protoreflect.ValueOfEnum(1))
	return nil
}

func placeOrder(_ context.Context, in, out *dynamicpb.Message) error {
	lines := in.Get(field(in, "lines")).List()
	var total int64
	for i := range lines.Len() {
		l := lines.Get(i).Message()
		total += 1250 * l.Get(l.Descriptor().Fields().ByName("quantity")).Int()
	}
	out.Set(field(out, "id"), protoreflect.ValueOfString("ord-1"))
	out.Set(field(out, "total_cents"), protoreflect.ValueOfInt64(total))
	out.Set(field(out, "line_count"), protoreflect.ValueOfInt32(int32(lines.Len())))
	out.Set(field(out, "customer_email"), in.Get(field(in, "customer_email")))
	if labels := in.Get(field(in, "labels")).Map(); labels.Len() > 0 {
		dst := out.Mutable(field(out, "labels")).Map()
		labels.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			dst.Set(k, v)
			return true
		})
	}
	return nil
}

func fail(_ context.Context, in, _ *dynamicpb.Message) error {
	var code connect.Code
	if err := code.UnmarshalText([]byte(in.Get(field(in, "code")).String())); err != nil {
		return fmt.Errorf("testservice: %w", err)
	}
	cerr := connect.NewError(code, errors.New(strings.TrimSpace(in.Get(field(in, "message")).String())))
	if in.Get(field(in, "bad_request")).Bool() {
		d, err := connect.NewErrorDetail(&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{
			{Field: "lines[0].sku", Description: "no such SKU"},
			{Field: "customer_email", Description: "is blocked"},
		}})
		if err != nil {
			return err
		}
		cerr.AddDetail(d)
	}
	return cerr
}
