package protomcp_test

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/ferry-mcp/ferry/protomcp"
)

// echoMethod is a method descriptor for DirectCall's error messages.
func echoMethod(t *testing.T) protoreflect.MethodDescriptor {
	t.Helper()
	sd := service(t, `syntax = "proto3"; package demo.v1; import "google/protobuf/wrappers.proto";
		service Echo { rpc Say(google.protobuf.StringValue) returns (google.protobuf.StringValue); }`, "Echo")
	return sd.Methods().ByName("Say")
}

func TestDirectCall(t *testing.T) {
	t.Parallel()
	md := echoMethod(t)
	var seen http.Header
	say := func(_ context.Context, r *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
		seen = r.Header()
		return connect.NewResponse(wrapperspb.String("you said " + r.Msg.GetValue())), nil
	}
	header := http.Header{"Authorization": {"Bearer k"}, "Mcp-Tool": {"say"}}

	got, err := protomcp.DirectCall(t.Context(), md, wrapperspb.String("hi"), header, say)
	if err != nil || got.(*wrapperspb.StringValue).GetValue() != "you said hi" {
		t.Fatalf("DirectCall = %v, %v", got, err)
	}
	if seen.Get("Authorization") != "Bearer k" || seen.Get("Mcp-Tool") != "say" {
		t.Errorf("the implementation saw headers %v", seen)
	}
	seen.Set("Authorization", "changed")
	if header.Get("Authorization") != "Bearer k" {
		t.Error("DirectCall shares the caller's header with the request")
	}

	// A dynamic message of the same type is converted.
	dyn := dynamicpb.NewMessage(wrapperspb.File_google_protobuf_wrappers_proto.Messages().ByName("StringValue"))
	dyn.Set(dyn.Descriptor().Fields().ByName("value"), protoreflect.ValueOfString("dyn"))
	got, err = protomcp.DirectCall(t.Context(), md, dyn, nil, say)
	if err != nil || got.(*wrapperspb.StringValue).GetValue() != "you said dyn" {
		t.Fatalf("DirectCall(dynamic) = %v, %v", got, err)
	}
}

func TestDirectCallRefuses(t *testing.T) {
	t.Parallel()
	md := echoMethod(t)
	say := func(context.Context, *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
		return nil, nil
	}
	tests := []struct {
		name string
		req  proto.Message
		call func(context.Context, *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error)
		code connect.Code
		want string
	}{
		{"no response", wrapperspb.String("x"), say, connect.CodeInternal, "internal: protomcp: demo.v1.Echo.Say returned no response and no error"},
		{"another type", &descriptorpb.FileOptions{}, say, connect.CodeInternal, "internal: protomcp: demo.v1.Echo.Say: request is a google.protobuf.FileOptions, not a google.protobuf.StringValue"},
		{"the implementation's error", wrapperspb.String("x"), func(context.Context, *connect.Request[wrapperspb.StringValue]) (*connect.Response[wrapperspb.StringValue], error) {
			return nil, connect.NewError(connect.CodeNotFound, errors.New("nobody here"))
		}, connect.CodeNotFound, "not_found: nobody here"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := protomcp.DirectCall(t.Context(), md, tt.req, nil, tt.call)
			if got != nil || connect.CodeOf(err) != tt.code || err.Error() != tt.want {
				t.Errorf("DirectCall = %v, %v; want code %v, %q", got, err, tt.code, tt.want)
			}
		})
	}
	err := protomcp.DirectUnknownMethod("demo.v1.Other", md)
	if connect.CodeOf(err) != connect.CodeUnimplemented || err.Error() != "unimplemented: protomcp: demo.v1.Other has no unary method demo.v1.Echo.Say" {
		t.Errorf("DirectUnknownMethod = %v", err)
	}
}

func TestDirectSimpleCall(t *testing.T) {
	t.Parallel()
	md := echoMethod(t)
	say := func(_ context.Context, in *wrapperspb.StringValue) (*wrapperspb.StringValue, error) {
		if in.GetValue() == "" {
			return nil, nil
		}
		return wrapperspb.String("you said " + in.GetValue()), nil
	}
	got, err := protomcp.DirectSimpleCall(t.Context(), md, wrapperspb.String("hi"), say)
	if err != nil || got.(*wrapperspb.StringValue).GetValue() != "you said hi" {
		t.Fatalf("DirectSimpleCall = %v, %v", got, err)
	}
	dyn := dynamicpb.NewMessage(wrapperspb.File_google_protobuf_wrappers_proto.Messages().ByName("StringValue"))
	dyn.Set(dyn.Descriptor().Fields().ByName("value"), protoreflect.ValueOfString("dyn"))
	if got, err := protomcp.DirectSimpleCall(t.Context(), md, dyn, say); err != nil || got.(*wrapperspb.StringValue).GetValue() != "you said dyn" {
		t.Errorf("DirectSimpleCall(dynamic) = %v, %v", got, err)
	}
	if got, err := protomcp.DirectSimpleCall(t.Context(), md, wrapperspb.String(""), say); got != nil || connect.CodeOf(err) != connect.CodeInternal {
		t.Errorf("DirectSimpleCall with no response = %v, %v", got, err)
	}
	if _, err := protomcp.DirectSimpleCall(t.Context(), md, &descriptorpb.FileOptions{}, say); connect.CodeOf(err) != connect.CodeInternal {
		t.Errorf("DirectSimpleCall with another type: %v", err)
	}
}
