package protomcp

import (
	"errors"
	"strconv"
	"strings"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/schema"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/protobuf/proto"
)

// RefusalCode returns the refusal code a Connect (or gRPC) status code
// becomes, and false for the codes that are masked: Unknown, Internal,
// Unimplemented, DataLoss, Canceled, and any code not listed here.
//
//	NotFound                                     not-found
//	AlreadyExists, Aborted, FailedPrecondition   conflict
//	PermissionDenied, Unauthenticated            forbidden
//	InvalidArgument, OutOfRange                  invalid
//	Unavailable, ResourceExhausted,
//	DeadlineExceeded                             unavailable
func RefusalCode(code connect.Code) (ferry.RefusalCode, bool) {
	switch code {
	case connect.CodeNotFound:
		return ferry.RefusalNotFound, true
	case connect.CodeAlreadyExists, connect.CodeAborted, connect.CodeFailedPrecondition:
		return ferry.RefusalConflict, true
	case connect.CodePermissionDenied, connect.CodeUnauthenticated:
		return ferry.RefusalForbidden, true
	case connect.CodeInvalidArgument, connect.CodeOutOfRange:
		return ferry.RefusalInvalid, true
	case connect.CodeUnavailable, connect.CodeResourceExhausted, connect.CodeDeadlineExceeded:
		return ferry.RefusalUnavailable, true
	}
	return "", false
}

// toolError turns a dispatcher's error into what a tool handler returns:
// a [*ferry.Refusal] for a Connect error of a mapped code, with the status
// message as the sentence and the field violations of a google.rpc.BadRequest
// detail listed one per line ("- items[2].sku: must be set"); a refusal
// as it is; and any other error as it is, which the server masks behind a
// reference and logs whole.
func toolError(err error) error {
	var r *ferry.Refusal
	if errors.As(err, &r) {
		return r
	}
	var ce *connect.Error
	if !errors.As(err, &ce) {
		return err
	}
	code, ok := RefusalCode(ce.Code())
	if !ok {
		return err // masked by the server, logged with the code and message
	}
	msg := cut(ce.Message())
	if msg == "" {
		msg = ce.Code().String()
	}
	if lines := fieldViolations(ce); len(lines) > 0 {
		msg += ":\n- " + strings.Join(lines, "\n- ")
	}
	return ferry.Refuse(code, msg)
}

// maxRefusalText bounds the status message and each field violation a
// refusal repeats, in characters: a service's sentence is short, and one
// that is not is cut, not sent whole to the model.
const maxRefusalText = 1024

// cut returns s, or its first maxRefusalText characters and "…".
func cut(s string) string {
	if len(s) <= maxRefusalText {
		return s
	}
	r := []rune(s)
	if len(r) <= maxRefusalText {
		return s
	}
	return string(r[:maxRefusalText]) + "…"
}

// fieldViolations lists the field violations of the google.rpc.BadRequest
// details of ce, each as "field: description": the first
// [schema.MaxErrors], and then a line counting the others.
func fieldViolations(ce *connect.Error) []string {
	var lines []string
	dropped := 0
	for _, d := range ce.Details() {
		if d.Type() != "google.rpc.BadRequest" {
			continue
		}
		var br errdetails.BadRequest
		if proto.Unmarshal(d.Bytes(), &br) != nil {
			continue
		}
		for _, v := range br.GetFieldViolations() {
			if len(lines) >= schema.MaxErrors {
				dropped++
				continue
			}
			desc := cut(v.GetDescription())
			if desc == "" {
				desc = cut(v.GetReason())
			}
			if v.GetField() == "" {
				lines = append(lines, desc)
				continue
			}
			lines = append(lines, cut(v.GetField())+": "+desc)
		}
	}
	if dropped > 0 {
		lines = append(lines, "and "+strconv.Itoa(dropped)+" more field violations, not listed")
	}
	return lines
}
