package client

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
)

// This file holds the questions a server asks the client: as requests on
// the connection in the legacy era, as input_required results in the
// modern one. Both are answered by the same functions of [Options].

// ElicitRequest is a server's elicitation/create question.
type ElicitRequest struct {
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// Mode is "form" (also when empty) or "url".
	Mode string `json:"mode,omitempty"`
	// RequestedSchema is the form's flat object schema, in form mode.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open, in URL mode.
	URL string `json:"url,omitempty"`
	// ElicitationID names a URL-mode elicitation.
	ElicitationID string `json:"elicitationId,omitempty"`
	// Raw is the request's params as the server sent them.
	Raw json.RawMessage `json:"-"`
}

// ElicitResult is the user's answer: Action is "accept", "decline" or
// "cancel"; Content holds the form's values when accepted.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// SampleRequest is a server's sampling/createMessage request.
type SampleRequest struct {
	// Messages is the conversation to complete.
	Messages []SamplingMessage `json:"messages"`
	// MaxTokens bounds the completion.
	MaxTokens int `json:"maxTokens"`
	// SystemPrompt is the system prompt the server asks for, if any.
	SystemPrompt string `json:"systemPrompt,omitempty"`
	// Raw is the request's params as the server sent them.
	Raw json.RawMessage `json:"-"`
}

// SamplingMessage is one message of a sampling conversation.
type SamplingMessage struct {
	Role    string  `json:"role"`
	Content Content `json:"content"`
}

// SampleResult is the model's answer to a [SampleRequest].
type SampleResult struct {
	// Role is normally "assistant".
	Role    string  `json:"role"`
	Content Content `json:"content"`
	// Model names the model that answered.
	Model string `json:"model"`
	// StopReason is why it stopped, such as "endTurn" or "maxTokens".
	StopReason string `json:"stopReason,omitempty"`
}

// Root is a boundary the client exposes, such as a directory.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// errNoAnswer is the error for a question the client has no function for.
func errNoAnswer(method string) *RPCError {
	return &RPCError{Code: CodeMethodNotFound, Message: "the client does not answer " + method}
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
		req := &ElicitRequest{}
		if err := json.Unmarshal(params, req); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "elicitation/create params: " + err.Error()}
		}
		req.Raw = params
		return nonNil(c.opts.Elicit(ctx, req))
	case "sampling/createMessage":
		if c.opts.Sample == nil {
			return nil, errNoAnswer(method)
		}
		req := &SampleRequest{}
		if err := json.Unmarshal(params, req); err != nil {
			return nil, &RPCError{Code: CodeInvalidParams, Message: "sampling/createMessage params: " + err.Error()}
		}
		req.Raw = params
		return nonNil(c.opts.Sample(ctx, req))
	case "roots/list":
		if c.opts.Roots == nil {
			return nil, errNoAnswer(method)
		}
		roots, err := c.opts.Roots(ctx)
		if err != nil {
			return nil, err
		}
		if roots == nil {
			roots = []Root{}
		}
		return map[string]any{"roots": roots}, nil
	}
	return nil, &RPCError{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// nonNil turns a nil answer without an error into an error.
func nonNil[T any](res *T, err error) (any, error) {
	if err == nil && res == nil {
		return nil, &RPCError{Code: CodeInternalError, Message: "the client's handler gave no answer"}
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
