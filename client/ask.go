package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/ferry-mcp/ferry"
)

// This file holds the questions a server asks the client: as requests on
// the connection in the legacy era, as input_required results in the
// modern one. Both are answered by the same functions of [Options].

// ElicitParams is a server's elicitation/create question: the server
// package's own type, so that both sides of a program read one
// declaration.
type ElicitParams = ferry.ElicitParams

// ElicitResult is the user's answer to an [ElicitParams]: the server
// package's own type.
type ElicitResult = ferry.ElicitResult

// CreateMessageParams is a server's sampling/createMessage request: it
// asks the client's model for a completion.
type CreateMessageParams struct {
	// Messages is the conversation to complete.
	Messages []PromptMessage `json:"messages"`
	// MaxTokens bounds the completion.
	MaxTokens int `json:"maxTokens"`
	// SystemPrompt is the system prompt the server asks for, if any.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// Temperature, StopSequences, ModelPreferences and IncludeContext are
	// the server's wishes for the model, as sent; nil or empty when it
	// gave none.
	Temperature      *float64        `json:"temperature,omitempty"`
	StopSequences    []string        `json:"stopSequences,omitempty"`
	ModelPreferences json.RawMessage `json:"modelPreferences,omitempty"`
	IncludeContext   string          `json:"includeContext,omitempty"`
	// Raw is the request's params as the server sent them.
	Raw json.RawMessage `json:"-"`
}

// CreateMessageResult is the model's answer to a [CreateMessageParams].
type CreateMessageResult struct {
	// Role is normally [RoleAssistant].
	Role    Role    `json:"role"`
	Content Content `json:"content"`
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason is why it stopped, such as "endTurn" or "maxTokens".
	StopReason string `json:"stopReason,omitempty"`
}

// Root is a boundary the client exposes, such as a directory: the server
// package's own type.
type Root = ferry.Root

// errNoAnswer is the error for a question the client has no function for.
func errNoAnswer(method string) *Error {
	return NewError(ferry.CodeMethodNotFound, "the client does not answer %s", method)
}

// answer answers one server question, as its result or an error.
func (c *Client) answer(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "ping":
		return struct{}{}, nil
	case "elicitation/create":
		if c.opts.Elicit == nil {
			return nil, errNoAnswer(method)
		}
		req := &ElicitParams{}
		if err := json.Unmarshal(params, req); err != nil {
			return nil, NewError(ferry.CodeInvalidParams, "elicitation/create params: %v", err)
		}
		return nonNil(c.opts.Elicit(ctx, req))
	case "sampling/createMessage":
		if c.opts.CreateMessage == nil {
			return nil, errNoAnswer(method)
		}
		req := &CreateMessageParams{}
		if err := json.Unmarshal(params, req); err != nil {
			return nil, NewError(ferry.CodeInvalidParams, "sampling/createMessage params: %v", err)
		}
		req.Raw = params
		return nonNil(c.opts.CreateMessage(ctx, req))
	case "roots/list":
		if c.opts.ListRoots == nil {
			return nil, errNoAnswer(method)
		}
		roots, err := c.opts.ListRoots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []Root{}
		}
		return map[string]any{"roots": roots}, nil
	}
	return nil, NewError(ferry.CodeMethodNotFound, "method not found: %s", method)
}

// nonNil turns a nil answer without an error into an error.
func nonNil[T any](res *T, err error) (any, error) {
	if err == nil && res == nil {
		return nil, NewError(ferry.CodeInternalError, "the client's handler gave no answer")
	}
	if err != nil {
		return nil, err
	}
	return res, nil
}

// serve answers a server request that arrived on the connection and
// returns the response to send.
func (c *Client) serve(ctx context.Context, m *message) []byte {
	res, err := c.answer(ctx, m.Method, m.Params)
	return encodeResponse(m.ID, res, err)
}

// notified hands a server notification to Options.Notify.
func (c *Client) notified(m *message) {
	if c.opts.Notify != nil {
		c.opts.Notify(m.Method, m.Params)
	}
}

// inputRequired is the part of a modern result that asks for input.
type inputRequired struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests"`
	RequestState  *string                 `json:"requestState"`
}

// inputRequest is one question of an input_required result.
type inputRequest struct {
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// maxInputRequests bounds the questions of one input_required result.
const maxInputRequests = 64

// answerInputs answers an input_required result's questions and returns
// the params to retry with: the original ones, the answers and the state.
func (c *Client) answerInputs(ctx context.Context, method string, p map[string]json.RawMessage, ir *inputRequired) (map[string]json.RawMessage, error) {
	if len(ir.InputRequests) == 0 || len(ir.InputRequests) > maxInputRequests {
		return nil, fmt.Errorf("client: %s asks for input with %d questions", method, len(ir.InputRequests))
	}
	keys := make([]string, 0, len(ir.InputRequests))
	for k := range ir.InputRequests {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	answers := make(map[string]any, len(keys))
	for _, k := range keys {
		q := ir.InputRequests[k]
		res, err := c.answer(ctx, q.Method, q.Params)
		if err != nil {
			return nil, fmt.Errorf("client: %s asked %s (%s): %w", method, q.Method, k, err)
		}
		answers[k] = res
	}
	out := make(map[string]json.RawMessage, len(p)+2)
	for k, v := range p {
		out[k] = v
	}
	out["inputResponses"], _ = json.Marshal(answers)
	delete(out, "requestState")
	if ir.RequestState != nil {
		out["requestState"], _ = json.Marshal(*ir.RequestState)
	}
	return out, nil
}
