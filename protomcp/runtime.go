package protomcp

import (
	"fmt"

	"github.com/ferry-mcp/ferry"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// AddDescribed serves a service known only at run time: it finds service
// in files (from [NewFiles], [ReadFiles] or [ReflectFiles]), computes its
// spec with [Describe] under [Options.Describe], and registers it with
// [AddService], the messages dynamic ([dynamicpb]) unless [Options.Types]
// is set. The tools are those the generator would write for the same
// files; their descriptions are the comments when the files carry source
// info, and otherwise a sentence naming the method.
func AddDescribed(srv *ferry.Server, files *protoregistry.Files, service protoreflect.FullName, d Dispatcher, opts *Options) error {
	if files == nil {
		return fmt.Errorf("protomcp: AddDescribed needs the files of %s", service)
	}
	desc, err := files.FindDescriptorByName(service)
	if err != nil {
		return fmt.Errorf("protomcp: service %s: %w", service, err)
	}
	sd, ok := desc.(protoreflect.ServiceDescriptor)
	if !ok {
		return fmt.Errorf("protomcp: %s is not a service", service)
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	spec, err := Describe(sd, &o.Describe)
	if err != nil {
		return err
	}
	o.Files = files
	if o.Types == nil {
		o.Types = new(protoregistry.Types)
	}
	return AddService(srv, spec, d, &o)
}
