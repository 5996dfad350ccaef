package protomcp

import (
	"errors"
	"strings"

	"connectrpc.com/connect"
	"github.com/ferry-mcp/ferry"
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
	msg := ce.Message()
	if msg == "" {
		msg = ce.Code().String()
	}
	if lines := fieldViolations(ce); len(lines) > 0 {
		msg += ":\n- " + strings.Join(lines, "\n- ")
	}
	return ferry.Refuse(code, msg)
}

// fieldViolations lists the field violations of the google.rpc.BadRequest
// details of ce, each as "field: description".
func fieldViolations(ce *connect.Error) []string {
	var lines []string
	for _, d := range ce.Details() {
		if d.Type() != "google.rpc.BadRequest" {
			continue
		}
		var br errdetails.BadRequest
		if proto.Unmarshal(d.Bytes(), &br) != nil {
			continue
		}
		for _, v := range br.GetFieldViolations() {
			desc := v.GetDescription()
			if desc == "" {
				desc = v.GetReason()
			}
			if v.GetField() == "" {
				lines = append(lines, desc)
				continue
			}
			lines = append(lines, v.GetField()+": "+desc)
		}
	}
	return lines
}
