package protomcp

import (
	"errors"
	"fmt"
	"slices"

	"github.com/ferry-mcp/ferry"
)

// newPrompts turns the prompts of spec into template prompts of the root's
// prompt API: a prompts/get is checked against the declared arguments
// (unknown ones refused, required ones demanded, each problem named) and
// its {{arg}} placeholders filled in, followed by the PreferWhen line.
// Hand-written prompts registered on the same server sit beside them.
func newPrompts(spec *ServiceSpec) ([]ferry.Prompt, error) {
	out := make([]ferry.Prompt, 0, len(spec.Prompts))
	var problems []error
	for _, ps := range spec.Prompts {
		if ps.Template == "" {
			problems = append(problems, fmt.Errorf("protomcp: prompt %q of %s has no template", ps.Name, spec.Service))
			continue
		}
		out = append(out, ferry.Prompt{
			Name: ps.Name, Title: ps.Title, Description: ps.Description, Template: ps.Template, PreferWhen: ps.PreferWhen,
			Arguments: slices.Clone(ps.Arguments),
		})
	}
	return out, errors.Join(problems...)
}
