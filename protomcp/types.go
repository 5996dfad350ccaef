package protomcp

import (
	"errors"
	"strings"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// typeResolver resolves the message types a google.protobuf.Any may name
// in a service's requests and responses: those declared in the service's
// file and in the files it imports, directly or not, and no others. A type
// linked into the binary for another reason (a descriptor.proto message,
// another service's request) is not resolved, so a model cannot make the
// service receive a type its .proto does not know; and a type known only
// at run time (a descriptor set, reflection) is resolved as a dynamic
// type, which protojson's default, the Go registry, cannot do.
type typeResolver struct {
	messages   map[protoreflect.FullName]protoreflect.MessageType
	extensions *extensionResolver
}

// machinery are the files a service's file imports for their options or
// their rules, never for its data: their messages are not request types.
var machinery = map[string]bool{
	"google/protobuf/descriptor.proto": true,
	"buf/validate/validate.proto":      true,
	"ferry/v1/options.proto":           true,
}

// newTypeResolver collects the messages of fd and of its imports, with
// the Go type of types where it is a message's own (see [messageType]).
func newTypeResolver(fd protoreflect.FileDescriptor, types *protoregistry.Types, extensions *extensionResolver) *typeResolver {
	r := &typeResolver{messages: map[protoreflect.FullName]protoreflect.MessageType{}, extensions: extensions}
	var messages func(mds protoreflect.MessageDescriptors)
	messages = func(mds protoreflect.MessageDescriptors) {
		for i := range mds.Len() {
			md := mds.Get(i)
			if !md.IsMapEntry() {
				r.messages[md.FullName()] = messageType(types, md)
			}
			messages(md.Messages())
		}
	}
	seen := map[string]bool{}
	var file func(fd protoreflect.FileDescriptor)
	file = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] || machinery[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		messages(fd.Messages())
		imports := fd.Imports()
		for i := range imports.Len() {
			file(imports.Get(i).FileDescriptor)
		}
	}
	file(fd)
	return r
}

var errUndeclaredType = errors.New("the service's .proto files declare no such message")

// FindMessageByName implements [protoregistry.MessageTypeResolver].
func (r *typeResolver) FindMessageByName(name protoreflect.FullName) (protoreflect.MessageType, error) {
	if mt, ok := r.messages[name]; ok {
		return mt, nil
	}
	return nil, errUndeclaredType
}

// FindMessageByURL implements [protoregistry.MessageTypeResolver]: the
// name is what follows the URL's last slash, as in the Go registry.
func (r *typeResolver) FindMessageByURL(url string) (protoreflect.MessageType, error) {
	name := url
	if i := strings.LastIndexByte(url, '/'); i >= 0 {
		name = url[i+1:]
	}
	return r.FindMessageByName(protoreflect.FullName(name))
}

// FindExtensionByName implements [protoregistry.ExtensionTypeResolver].
func (r *typeResolver) FindExtensionByName(field protoreflect.FullName) (protoreflect.ExtensionType, error) {
	return r.extensions.FindExtensionByName(field)
}

// FindExtensionByNumber implements [protoregistry.ExtensionTypeResolver].
func (r *typeResolver) FindExtensionByNumber(message protoreflect.FullName, field protoreflect.FieldNumber) (protoreflect.ExtensionType, error) {
	return r.extensions.FindExtensionByNumber(message, field)
}
