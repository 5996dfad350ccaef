// Package protoset writes file descriptors as a FileDescriptorSet, as
// protoc --include_imports writes one.
package protoset

import (
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// Of returns the set of the files fds and of every file they import,
// directly or not: each once, after the files it imports, with its source
// info (comments) when it has some.
func Of(fds ...protoreflect.FileDescriptor) *descriptorpb.FileDescriptorSet {
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := range imports.Len() {
			add(imports.Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	for _, fd := range fds {
		add(fd)
	}
	return set
}

// WithoutSourceInfo drops the source info of every file of set, as a set
// written without --include_source_info lacks it, and returns set.
func WithoutSourceInfo(set *descriptorpb.FileDescriptorSet) *descriptorpb.FileDescriptorSet {
	for _, f := range set.GetFile() {
		f.SourceCodeInfo = nil
	}
	return set
}
