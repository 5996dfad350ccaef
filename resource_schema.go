package ferry

import (
	"context"
	"encoding/json"
	"fmt"
)

// AddSchemaResources serves the JSON Schemas of every tool as resources, so
// that clients and people can read them: <scheme>://schemas lists every
// tool's input and output schema, and the template <scheme>://schemas/{tool}
// serves one tool's. They reflect the tools registered when they are read,
// and only the tools the reader may see (see [Server.Allows]; a tool shown
// for step-up is shown here too).
func (s *Server) AddSchemaResources(scheme string) {
	all := scheme + "://schemas"
	s.AddResource(Resource{URI: all, Name: "tool-schemas", MIMEType: "application/json",
		Description: "The input and output JSON Schemas of every tool, by tool name."},
		func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error) {
			s.mu.RLock()
			out := make(map[string]schemaPair, s.tools.len())
			for _, e := range s.tools.sorted {
				if s.visibleTool(ctx, &e.info) { // a hidden tool's schema is not shown either
					out[e.tool.Name] = schemasOf(e)
				}
			}
			s.mu.RUnlock()
			return jsonContents(req.URI, out)
		})
	s.AddResourceTemplate(ResourceTemplate{URITemplate: all + "/{tool}", Name: "tool-schema", MIMEType: "application/json",
		Description: "The input and output JSON Schemas of one tool."},
		func(ctx context.Context, req *ReadResourceRequest) ([]ResourceContents, error) {
			s.mu.RLock()
			e, ok := s.tools.get(req.Vars["tool"])
			ok = ok && s.visibleTool(ctx, &e.info)
			var out schemaPair
			if ok {
				out = schemasOf(e)
			}
			s.mu.RUnlock()
			if !ok {
				return nil, fmt.Errorf("%w: no tool %q", ErrResourceNotFound, req.Vars["tool"])
			}
			return jsonContents(req.URI, out)
		})
	s.mu.Lock()
	s.schemaTemplate = all + "/{tool}"
	s.mu.Unlock()
}

type schemaPair struct {
	Input  json.RawMessage `json:"input"`
	Output json.RawMessage `json:"output,omitempty"`
}

func schemasOf(e *toolEntry) schemaPair { return schemaPair{Input: e.in, Output: e.out} }

func jsonContents(uri string, v any) ([]ResourceContents, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return []ResourceContents{{URI: uri, MIMEType: "application/json", Text: string(data)}}, nil
}
