package protomcp

import (
	"net/http"
	"strings"
	"testing"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/protomcp/internal/prototest"
	"google.golang.org/protobuf/reflect/protoregistry"
)

func TestRulesThatDoNotCompileAreARegistrationError(t *testing.T) {
	fds := prototest.Compile(t, map[string]string{"bad/v1/bad.proto": `
syntax = "proto3";
package bad.v1;
import "buf/validate/validate.proto";
service Bad { rpc Do(DoRequest) returns (DoResponse); }
message DoRequest {
  string name = 1 [(buf.validate.field).cel = {id: "broken", message: "x", expression: "this +"}];
}
message DoResponse {}
`}, "bad/v1/bad.proto")
	files := new(protoregistry.Files)
	if err := registerWithImports(files, fds[0]); err != nil {
		t.Fatal(err)
	}
	spec := &ServiceSpec{Service: "bad.v1.Bad", Tools: []ToolSpec{{Method: "Do", Name: "do", Description: "Does."}}}
	srv := ferry.NewServer("s", "1", nil)
	err := AddService(srv, spec, Handler(http.NotFoundHandler()), &Options{Files: files})
	if err == nil || !strings.Contains(err.Error(), `tool "do": the buf.validate rules of bad.v1.DoRequest do not compile`) {
		t.Errorf("got %v", err)
	}
}
