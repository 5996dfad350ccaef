package protomcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"connectrpc.com/connect"
	"connectrpc.com/grpcreflect"
	"github.com/ferry-mcp/ferry/protomcp/internal/protoset"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
)

// MaxDescriptorSetBytes bounds the descriptor set [ReadFiles] reads, and
// the descriptors [ReflectFiles] accepts from a reflection service.
const MaxDescriptorSetBytes = 64 << 20

// MaxDescriptorFiles bounds the files of a descriptor set [NewFiles]
// accepts (a large API's set holds a few thousand), so that a set of
// millions of tiny files, each importing the next, cannot exhaust memory
// or the stack.
const MaxDescriptorFiles = 1 << 16

// reflectLimit is [MaxDescriptorSetBytes], as [ReflectFiles] applies it;
// a test lowers it.
var reflectLimit = MaxDescriptorSetBytes

// FilesOf returns the registry of the files fds and of every file they
// import, as [NewFiles] makes it from their FileDescriptorSet: for
// descriptors compiled at run time (with a .proto compiler such as
// protocompile) rather than read from a set.
func FilesOf(fds ...protoreflect.FileDescriptor) (*protoregistry.Files, error) {
	return NewFiles(protoset.Of(fds...))
}

// NewFiles returns the registry of the files of a FileDescriptorSet, for
// descriptors known only at run time ([Options.Files]). An import the set
// does not hold is taken from [protoregistry.GlobalFiles] (the well-known
// types, buf/validate/validate.proto and google/api/field_behavior.proto
// are there when their Go packages are linked in), so a set written without
// --include_imports works too. A file the set holds that is also linked
// in is taken from [protoregistry.GlobalFiles], so that its messages have
// their Go types and options their extensions. Comments are kept when the set has source
// info (protoc --include_source_info, buf build --as-file-descriptor-set
// keeps it).
func NewFiles(set *descriptorpb.FileDescriptorSet) (*protoregistry.Files, error) {
	if n := len(set.GetFile()); n > MaxDescriptorFiles {
		return nil, fmt.Errorf("protomcp: the descriptor set holds %d files, more than %d", n, MaxDescriptorFiles)
	}
	byName := make(map[string]*descriptorpb.FileDescriptorProto, len(set.GetFile()))
	for _, f := range set.GetFile() {
		if _, dup := byName[f.GetName()]; dup {
			return nil, fmt.Errorf("protomcp: the descriptor set holds %s twice", f.GetName())
		}
		byName[f.GetName()] = f
	}
	files := new(protoregistry.Files)
	state := map[string]int{} // 1 while its imports are added, 2 once registered
	var add func(name string, from string) error
	add = func(name, from string) error {
		switch state[name] {
		case 1:
			return fmt.Errorf("protomcp: import cycle through %s", name)
		case 2:
			return nil
		}
		if fd, err := protoregistry.GlobalFiles.FindFileByPath(name); err == nil {
			state[name] = 2
			return registerWithImports(files, fd)
		}
		fdp, ok := byName[name]
		if !ok {
			return fmt.Errorf("protomcp: %s imports %s, which is neither in the descriptor set nor linked in", from, name)
		}
		state[name] = 1
		for _, dep := range fdp.GetDependency() {
			if err := add(dep, name); err != nil {
				return err
			}
		}
		fd, err := protodesc.NewFile(fdp, files)
		if err != nil {
			return fmt.Errorf("protomcp: %s: %w", name, err)
		}
		state[name] = 2
		return files.RegisterFile(fd)
	}
	for _, f := range set.GetFile() {
		if err := add(f.GetName(), "the set"); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// registerWithImports registers fd and the files it imports, each once.
func registerWithImports(files *protoregistry.Files, fd protoreflect.FileDescriptor) error {
	if _, err := files.FindFileByPath(fd.Path()); err == nil {
		return nil
	}
	imports := fd.Imports()
	for i := range imports.Len() {
		if err := registerWithImports(files, imports.Get(i).FileDescriptor); err != nil {
			return err
		}
	}
	return files.RegisterFile(fd)
}

// ReadFiles reads a binary FileDescriptorSet (protoc -o set.binpb, buf
// build -o set.binpb) and returns its registry, as [NewFiles] does.
func ReadFiles(path string) (*protoregistry.Files, error) {
	f, err := os.Open(path) //nolint:gosec // the path is the operator's own (a flag, a config), not a model's
	if err != nil {
		return nil, fmt.Errorf("protomcp: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxDescriptorSetBytes+1))
	if err != nil {
		return nil, fmt.Errorf("protomcp: reading %s: %w", path, err)
	}
	if len(data) > MaxDescriptorSetBytes {
		return nil, fmt.Errorf("protomcp: %s is larger than %d bytes", path, MaxDescriptorSetBytes)
	}
	set := new(descriptorpb.FileDescriptorSet)
	if err := proto.Unmarshal(data, set); err != nil {
		return nil, fmt.Errorf("protomcp: %s is not a binary FileDescriptorSet: %w", path, err)
	}
	return NewFiles(set)
}

// ReflectFiles asks the gRPC server reflection service at baseURL (v1, or
// v1alpha) for the files defining the named services, or every service it
// lists when services is empty, and returns their registry, as [NewFiles]
// does. Reflection is a bidirectional stream: httpClient must speak HTTP/2
// to the server (TLS, or h2c). Reflection carries no comments. The
// server is not trusted to be small: past [MaxDescriptorSetBytes] of
// descriptors, or [MaxDescriptorFiles] files, ReflectFiles stops with an
// error; ctx bounds the time.
func ReflectFiles(ctx context.Context, httpClient connect.HTTPClient, baseURL string, services ...protoreflect.FullName) (*protoregistry.Files, error) {
	limit := reflectLimit
	stream := grpcreflect.NewClient(httpClient, baseURL, connect.WithGRPC(), connect.WithReadMaxBytes(limit)).NewStream(ctx)
	defer func() { _, _ = stream.Close() }()
	if len(services) == 0 {
		var err error
		if services, err = stream.ListServices(); err != nil {
			return nil, fmt.Errorf("protomcp: listing the services by reflection: %w", err)
		}
	}
	if len(services) > MaxDescriptorFiles {
		return nil, fmt.Errorf("protomcp: the reflection service lists %d services, more than %d", len(services), MaxDescriptorFiles)
	}
	set := new(descriptorpb.FileDescriptorSet)
	seen := map[string]bool{}
	received := 0
	for _, name := range services {
		if name == "grpc.reflection.v1.ServerReflection" || name == "grpc.reflection.v1alpha.ServerReflection" {
			continue
		}
		fds, err := stream.FileContainingSymbol(name)
		if err != nil {
			return nil, fmt.Errorf("protomcp: reflecting %s: %w", name, err)
		}
		for _, fd := range fds {
			if received += proto.Size(fd); received > limit {
				return nil, fmt.Errorf("protomcp: the reflection service sent more than %d bytes of descriptors", limit)
			}
			if !seen[fd.GetName()] {
				seen[fd.GetName()] = true
				set.File = append(set.File, fd)
			}
		}
	}
	if len(set.File) == 0 {
		return nil, errors.New("protomcp: the reflection service lists no services")
	}
	return NewFiles(set)
}
