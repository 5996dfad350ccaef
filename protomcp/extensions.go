package protomcp

import (
	"errors"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"
)

// extensionResolver resolves the extensions protovalidate finds in the
// options of a service's messages (predefined rules are extensions of
// buf.validate's rule messages): those with Go types, registered in
// [protoregistry.GlobalTypes], and then the ones declared in the files the
// service's file sees, as dynamic types, for descriptors known only at run
// time.
type extensionResolver struct {
	dynamic *protoregistry.Types
}

// newExtensionResolver collects the extensions declared in fd and the
// files it imports, transitively.
func newExtensionResolver(fd protoreflect.FileDescriptor) (*extensionResolver, error) {
	r := &extensionResolver{dynamic: new(protoregistry.Types)}
	seen := map[string]bool{}
	var errs []error
	var file func(fd protoreflect.FileDescriptor)
	var add func(xds protoreflect.ExtensionDescriptors)
	var messages func(mds protoreflect.MessageDescriptors)
	add = func(xds protoreflect.ExtensionDescriptors) {
		for i := range xds.Len() {
			xd := xds.Get(i)
			if _, err := protoregistry.GlobalTypes.FindExtensionByName(xd.FullName()); err == nil {
				continue
			}
			if err := r.dynamic.RegisterExtension(dynamicpb.NewExtensionType(xd)); err != nil {
				errs = append(errs, err)
			}
		}
	}
	messages = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			add(mds.Get(i).Extensions())
			messages(mds.Get(i).Messages())
		}
	}
	file = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		add(fd.Extensions())
		messages(fd.Messages())
		imports := fd.Imports()
		for i := range imports.Len() {
			file(imports.Get(i).FileDescriptor)
		}
	}
	file(fd)
	return r, errors.Join(errs...)
}

// FindExtensionByName implements [protoregistry.ExtensionTypeResolver].
func (r *extensionResolver) FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error) {
	if xt, err := protoregistry.GlobalTypes.FindExtensionByName(field); err == nil {
		return xt, nil
	}
	return r.dynamic.FindExtensionByName(field)
}

// FindExtensionByNumber implements [protoregistry.ExtensionTypeResolver].
func (r *extensionResolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	if xt, err := protoregistry.GlobalTypes.FindExtensionByNumber(message, field); err == nil {
		return xt, nil
	}
	return r.dynamic.FindExtensionByNumber(message, field)
}
