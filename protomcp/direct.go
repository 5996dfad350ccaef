package protomcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// DirectCall calls one method of a Connect handler implementation with
// req, for the direct [Dispatcher]s that protoc-gen-ferry writes
// (XxxServiceDirect): it wraps req in a [connect.Request] carrying header
// (copied, so header is not modified) and returns the response's message.
//
// req is normally a *Req, as [AddService] decodes arguments into the
// registered Go type; any other message of the same type (a dynamic one)
// is converted through its wire form. A nil response with a nil error is
// reported as an internal error rather than passed on as an empty result.
func DirectCall[Req, Resp any, PReq interface {
	*Req
	proto.Message
}, PResp interface {
	*Resp
	proto.Message
}](ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, header http.Header, call func(context.Context, *connect.Request[Req]) (*connect.Response[Resp], error)) (proto.Message, error) {
	in, ok := req.(PReq)
	if !ok {
		in = new(Req)
		if err := convert(req, in); err != nil {
			return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("protomcp: %s: %w", method.FullName(), err))
		}
	}
	r := connect.NewRequest((*Req)(in))
	for k, vs := range header {
		for _, v := range vs {
			r.Header().Add(k, v)
		}
	}
	resp, err := call(ctx, r)
	if err != nil {
		return nil, err
	}
	if resp == nil || resp.Msg == nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("protomcp: %s returned no response and no error", method.FullName()))
	}
	return PResp(resp.Msg), nil
}

// DirectSimpleCall is [DirectCall] for the handler interface that
// protoc-gen-connect-go writes with simple=true, whose methods take and
// return the messages themselves. Such a method has no request to carry
// headers, and Connect offers no way to give it a handler context from
// outside, so the call's headers do not reach it: use [Handler] when the
// implementation reads them.
func DirectSimpleCall[Req, Resp any, PReq interface {
	*Req
	proto.Message
}, PResp interface {
	*Resp
	proto.Message
}](ctx context.Context, method protoreflect.MethodDescriptor, req proto.Message, call func(context.Context, *Req) (*Resp, error)) (proto.Message, error) {
	in, ok := req.(PReq)
	if !ok {
		in = new(Req)
		if err := convert(req, in); err != nil {
			return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("protomcp: %s: %w", method.FullName(), err))
		}
	}
	resp, err := call(ctx, (*Req)(in))
	if err != nil {
		return nil, err
	}
	if resp == nil {
		return nil, connect.NewError(connect.CodeInternal, fmt.Errorf("protomcp: %s returned no response and no error", method.FullName()))
	}
	return PResp(resp), nil
}

// convert copies src into dst, a message of the same full name.
func convert(src, dst proto.Message) error {
	if src == nil {
		return errors.New("no request message")
	}
	want, got := dst.ProtoReflect().Descriptor().FullName(), src.ProtoReflect().Descriptor().FullName()
	if want != got {
		return fmt.Errorf("request is a %s, not a %s", got, want)
	}
	b, err := proto.Marshal(src)
	if err != nil {
		return err
	}
	return proto.Unmarshal(b, dst)
}

// DirectUnknownMethod is the error of a direct [Dispatcher] asked for a
// method its service does not have as a tool.
func DirectUnknownMethod(service protoreflect.FullName, method protoreflect.MethodDescriptor) error {
	return connect.NewError(connect.CodeUnimplemented, fmt.Errorf("protomcp: %s has no unary method %s", service, method.FullName()))
}
