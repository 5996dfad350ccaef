package protomcp

import (
	"errors"

	"github.com/ferry-mcp/ferry"
)

// AddService registers a tool on srv for every [ToolSpec] of spec and a
// prompt for every [PromptSpec], calling the methods through d.
func AddService(srv *ferry.Server, spec *ServiceSpec, d Dispatcher, opts *Options) error {
	if srv == nil || spec == nil || d == nil {
		return errors.New("protomcp: AddService needs a server, a spec and a dispatcher")
	}
	return errors.New("protomcp: AddService is not implemented yet")
}
