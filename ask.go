package ferry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// ElicitParams asks the user for input through the client.
type ElicitParams struct {
	// Message tells the user what is asked and why.
	Message string `json:"message"`
	// Mode is "form" (the default when empty) or "url".
	Mode string `json:"mode,omitempty"`
	// RequestedSchema is a flat object schema of primitive properties, for
	// form mode.
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	// URL is the page to open, for URL mode.
	URL string `json:"url,omitempty"`
	// ElicitationID identifies a URL-mode elicitation (2025-11-25).
	ElicitationID string `json:"elicitationId,omitempty"`
}

// ElicitResult is the user's answer: Action is "accept", "decline" or
// "cancel"; Content holds the form's values when accepted.
type ElicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// CreateMessageParams asks the client's model for a completion.
type CreateMessageParams struct {
	Messages      []PromptMessage `json:"messages"`
	MaxTokens     int             `json:"maxTokens"`
	SystemPrompt  string          `json:"systemPrompt,omitempty"`
	Temperature   *float64        `json:"temperature,omitempty"`
	StopSequences []string        `json:"stopSequences,omitempty"`
	// ModelPreferences is passed through as given.
	ModelPreferences json.RawMessage `json:"modelPreferences,omitempty"`
	IncludeContext   string          `json:"includeContext,omitempty"`
}

// CreateMessageResult is the client model's answer.
type CreateMessageResult struct {
	Role       Role
	Content    Content
	Model      string
	StopReason string
}

// UnmarshalJSON implements [json.Unmarshaler].
func (r *CreateMessageResult) UnmarshalJSON(data []byte) error {
	var w struct {
		Role       Role            `json:"role"`
		Content    json.RawMessage `json:"content"`
		Model      string          `json:"model"`
		StopReason string          `json:"stopReason"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	r.Role, r.Model, r.StopReason = w.Role, w.Model, w.StopReason
	if len(w.Content) > 0 && w.Content[0] == '[' {
		var blocks []json.RawMessage
		if err := json.Unmarshal(w.Content, &blocks); err != nil || len(blocks) == 0 {
			return errors.New("ferry: sampling result without content")
		}
		w.Content = blocks[0]
	}
	c, err := decodeContent(w.Content)
	r.Content = c
	return err
}

// Root is a boundary the client exposes, such as a directory.
type Root struct {
	URI  string `json:"uri"`
	Name string `json:"name,omitempty"`
}

// Elicit asks the user a question through the client and waits for the
// answer. In legacy sessions the request travels on the tool call's stream
// and needs a stateful session (or stdio); in the modern era the call
// returns an input_required result and the client retries with the answer,
// so the handler runs again and this time Elicit returns it. A handler that
// gets [ErrInputRequired] must return (it may return the error).
// [WithInputKey] names the question in the modern era.
//
// If the client did not declare the elicitation capability, a legacy call
// gets an error wrapping [ErrNoClientStream]; a modern request is answered
// with -32021 (MissingRequiredClientCapability) naming the capability,
// whatever the handler returns.
func Elicit(ctx context.Context, p *ElicitParams) (*ElicitResult, error) {
	r := requestFrom(ctx)
	if err := r.needs("elicitation", r != nil && r.caps.elicitation, "the client cannot answer elicitation"); err != nil {
		return nil, err
	}
	var res ElicitResult
	if err := r.ask(ctx, "elicitation/create", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// CreateMessage asks the client's model for a completion (sampling). It
// travels like [Elicit].
func CreateMessage(ctx context.Context, p *CreateMessageParams) (*CreateMessageResult, error) {
	r := requestFrom(ctx)
	if err := r.needs("sampling", r != nil && r.caps.sampling, "the client cannot answer sampling"); err != nil {
		return nil, err
	}
	var res CreateMessageResult
	if err := r.ask(ctx, "sampling/createMessage", p, &res); err != nil {
		return nil, err
	}
	return &res, nil
}

// ListRoots asks the client for its roots. It travels like [Elicit].
func ListRoots(ctx context.Context) ([]Root, error) {
	r := requestFrom(ctx)
	if err := r.needs("roots", r != nil && r.caps.roots, "the client has no roots"); err != nil {
		return nil, err
	}
	var res struct {
		Roots []Root `json:"roots"`
	}
	if err := r.ask(ctx, "roots/list", struct{}{}, &res); err != nil {
		return nil, err
	}
	return res.Roots, nil
}

// ClientError is the client's error answer to a question the server asked
// it, such as a user declining sampling (code -1). It is not a protocol
// error of the request being served: a tool that returns it gives the
// model an IsError result saying the client did not answer.
type ClientError struct {
	Method  string
	Code    Code
	Message string
}

// Error implements error.
func (e *ClientError) Error() string {
	return fmt.Sprintf("ferry: the client refused %s: %s (%d)", e.Method, e.Message, e.Code)
}

// needs checks that the client declared the capability a question needs.
// In the modern era a missing one is a -32021 error the whole request is
// answered with, whatever the handler returns; in legacy sessions it is
// [ErrNoClientStream], which a tool reports as an IsError result.
func (r *request) needs(capability string, declared bool, legacy string) error {
	switch {
	case declared:
		return nil
	case r != nil && r.inputState() != nil:
		return r.inputState().lack(capability)
	}
	return fmt.Errorf("ferry: %s: %w", legacy, ErrNoClientStream)
}

// ask sends a server-to-client request and decodes its result into res.
func (r *request) ask(ctx context.Context, method string, params, res any) error {
	if r.modern {
		in := r.inputState()
		if in == nil {
			return fmt.Errorf("ferry: %s cannot ask the client anything: %w", r.method, ErrNoClientStream)
		}
		return in.ask(method, inputKeyFrom(ctx), params, res)
	}
	if r.peer.calls == nil || r.peer.out == nil {
		return fmt.Errorf("ferry: %s needs a stateful session or stdio: %w", method, ErrNoClientStream)
	}
	data, err := json.Marshal(params)
	if err != nil {
		return err
	}
	answered, err := r.waitForClient()
	if err != nil {
		return err
	}
	reply, err := func() (*jsonrpc.Message, error) {
		defer answered() // even if sending panics, the place goes back
		return r.peer.calls.call(ctx, func(id json.RawMessage) error {
			r.reply.mu.Lock()
			defer r.reply.mu.Unlock()
			if r.reply.done {
				return ErrNoClientStream
			}
			return r.peer.out.send(jsonrpc.AppendRequest(nil, id, method, data))
		})
	}()
	if err != nil {
		return err
	}
	if reply.Error != nil {
		return &ClientError{Method: method, Code: Code(reply.Error.Code), Message: reply.Error.Message}
	}
	return json.Unmarshal(reply.Result, res)
}

// waitForClient gives up the request's running place while it waits for
// the client's answer to a question, taking a waiting place instead, so
// that the connection reads on and the answer can arrive; the returned
// func takes a running place again. Several questions may wait at once:
// the first trades the place, and the last trades it back. When every
// waiting place is taken, the question fails at once with an error
// wrapping [ErrNoClientStream]: keeping the running place instead could
// leave every place held by requests whose answers the connection no
// longer reads.
func (r *request) waitForClient() (answered func(), err error) {
	if r.peer.places == nil {
		return func() {}, nil
	}
	r.reply.mu.Lock()
	r.reply.waiting++
	first := r.reply.waiting == 1
	r.reply.mu.Unlock()
	if first {
		select {
		case r.peer.places.waiting <- struct{}{}:
			<-r.peer.places.running
			r.reply.mu.Lock()
			r.reply.gaveUp = true
			r.reply.mu.Unlock()
		default:
			r.reply.mu.Lock()
			r.reply.waiting--
			r.reply.mu.Unlock()
			return nil, fmt.Errorf("ferry: %d questions already wait for this client's answers: %w", MaxRequestsInFlight, ErrNoClientStream)
		}
	}
	return func() {
		r.reply.mu.Lock()
		r.reply.waiting--
		back := r.reply.waiting == 0 && r.reply.gaveUp
		if back {
			r.reply.gaveUp = false
		}
		r.reply.mu.Unlock()
		if back {
			r.peer.places.running <- struct{}{}
			<-r.peer.places.waiting
		}
	}, nil
}
