package ferry

import "context"

// CompleteRequest is a completion/complete: the client wants suggestions
// for the value of an argument of a prompt or a resource template.
type CompleteRequest struct {
	// RefType is "ref/prompt" or "ref/resource".
	RefType string
	// Name is the prompt's name, for ref/prompt.
	Name string
	// URI is the resource template, for ref/resource.
	URI string
	// Argument is the argument being completed and Value what is typed so far.
	Argument, Value string
	// Context holds the values of arguments already chosen.
	Context map[string]string
}

// CompleteResult holds suggestions, most relevant first (at most 100 are
// sent). Total is the number of suggestions in all, when known; HasMore says
// there are more than were sent.
type CompleteResult struct {
	Values  []string
	Total   int
	HasMore bool
}

// CompletionHandler answers completion/complete. A returned [*Error] reaches
// the client as is.
type CompletionHandler func(ctx context.Context, req *CompleteRequest) (*CompleteResult, error)

// maxCompletions is the protocol's cap on completion values.
const maxCompletions = 100
