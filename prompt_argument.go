package ferry

import (
	"encoding/json"
	"strings"
)

// MarshalJSON encodes a as prompts/list sends it. The protocol's prompt
// arguments have a name, a title, a description and a required flag only,
// so what a client could not otherwise learn is appended to the
// description, in this order: the only values allowed ("One of: metric,
// imperial.") when OnlyValues is set, and the Default ("Default: metric.").
// The Go value's Description is left as it is.
func (a PromptArgument) MarshalJSON() ([]byte, error) {
	type wire PromptArgument // without this method
	w := wire(a)
	w.Description = a.publishedDescription()
	return json.Marshal(w)
}

// publishedDescription returns a's description with its allowed values and
// default appended, each as a sentence.
func (a *PromptArgument) publishedDescription() string {
	var notes []string
	if a.OnlyValues && len(a.Values) > 0 {
		notes = append(notes, "One of: "+strings.Join(a.Values, ", ")+".")
	}
	if a.Default != "" {
		notes = append(notes, "Default: "+a.Default+".")
	}
	if len(notes) == 0 {
		return a.Description
	}
	if a.Description != "" {
		notes = append([]string{a.Description}, notes...)
	}
	return strings.Join(notes, " ")
}
