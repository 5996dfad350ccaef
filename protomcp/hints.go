package protomcp

import (
	"connectrpc.com/connect"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// idempotency returns the Connect idempotency level of a method, from its
// idempotency_level option.
func idempotency(md protoreflect.MethodDescriptor) connect.IdempotencyLevel {
	o, ok := md.Options().(*descriptorpb.MethodOptions)
	if !ok || o == nil {
		return connect.IdempotencyUnknown
	}
	switch o.GetIdempotencyLevel() {
	case descriptorpb.MethodOptions_NO_SIDE_EFFECTS:
		return connect.IdempotencyNoSideEffects
	case descriptorpb.MethodOptions_IDEMPOTENT:
		return connect.IdempotencyIdempotent
	}
	return connect.IdempotencyUnknown
}
