package ferry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
)

// This file holds the confirmation of a call by a person: which tools ask
// ([ConfirmPolicy], [ServerOptions.Confirm]), the summary the person reads,
// and the question, asked as an elicitation in a legacy session and as an
// input_required result in the 2026-07-28 era (whose request state binds
// the answer to the call: confirm_input.go). [Server.callTool] reaches it
// through one nil check, for the tools that ask.

// ConfirmPolicy says whether a tool's calls wait for a person's
// confirmation before they run (see [ServerOptions.Confirm]).
type ConfirmPolicy uint8

// The confirmation policies of a tool.
const (
	// ConfirmDestructive is the default: a call is confirmed when the
	// server confirms ([ServerOptions.Confirm]) and the tool is
	// destructive ([ToolInfo.Destructive]).
	ConfirmDestructive ConfirmPolicy = iota
	// ConfirmWrites confirms a call when the server confirms and the tool
	// writes at all ([ToolInfo.Writes]): for a tool the hints call
	// additive that still overwrites values, such as an update.
	ConfirmWrites
	// ConfirmAlways confirms every call, whatever the server's option.
	ConfirmAlways
	// ConfirmNever never asks, whatever the server's option.
	ConfirmNever
)

// DefaultConfirmTimeout is how long a legacy session's call waits for the
// person's answer when [Limits.ConfirmTimeout] is zero. (A 2026-07-28
// client answers in a retry, within the request state's ten minutes.)
const DefaultConfirmTimeout = 2 * time.Minute

// ConfirmKey names the confirmation question in a 2026-07-28
// input_required result's inputRequests: the client answers it in
// inputResponses under this key, in a retry that carries the result's
// requestState.
const ConfirmKey = "ferry.confirm"

// maxConfirmArgs and maxConfirmValue bound the arguments a summary shows.
const (
	maxConfirmArgs  = 12
	maxConfirmValue = 200
)

// confirmation is what a tool that asks before it runs keeps: its checks
// of the arguments (so that a call that would be refused for them is not
// put to a person) and its summarizer.
type confirmation struct {
	validator *schema.Validator
	summarize func(ctx context.Context, req *CallToolRequest) (string, error)
}

// confirms reports whether calls of t wait for a person's confirmation,
// under the server's option and t's policy.
func (s *Server) confirms(t *Tool, info *ToolInfo) bool {
	switch t.Confirm {
	case ConfirmAlways:
		return true
	case ConfirmNever:
		return false
	case ConfirmWrites:
		return s.opts.Confirm && info.Writes()
	}
	return s.opts.Confirm && info.Destructive
}

// newConfirmation returns what a tool that asks keeps, or nil for one
// that does not.
func (s *Server) newConfirmation(t *Tool, info *ToolInfo, v *schema.Validator) *confirmation {
	if !s.confirms(t, info) {
		return nil
	}
	return &confirmation{validator: v, summarize: t.Summarize}
}

// confirmTimeout is how long a legacy call waits for the person.
func (s *Server) confirmTimeout() time.Duration {
	if d := s.opts.Limits.ConfirmTimeout; d > 0 {
		return d
	}
	return DefaultConfirmTimeout
}

// confirmCall puts r's call to a person before it runs. It returns nil,
// nil when the person accepted; a refusal the model reads when they
// declined, cancelled, did not answer, or could not be asked; or
// [ErrInputRequired] when a 2026-07-28 client must ask and retry. A call
// whose arguments its input schema refuses is not put to anyone: it goes
// on, and its handler chain refuses it.
func (s *Server) confirmCall(ctx context.Context, r *request) (*ToolResult, error) {
	e := r.target.tool
	c := e.confirm
	args := r.params.Arguments
	if c.validator != nil {
		checked, errs := c.validator.Validate(args)
		if len(errs) > 0 {
			return nil, nil
		}
		args = checked
	}
	what := describeCall(&e.info)
	if !r.caps.elicitation {
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		return NewErrorResult("unavailable: " + what + " needs a person to confirm it, and this client cannot ask its user " +
			"(it did not declare the elicitation capability); the tool did not run"), nil
	}
	if r.stateless() {
		setOutcome(ctx, outcomeRefused, RefusalUnavailable)
		s.logger.WarnContext(ctx, "tool could not ask for confirmation", "tool", e.tool.Name, "hint", statelessHint)
		return NewErrorResult("unavailable: " + what + " needs a person to confirm it, and a stateless session cannot ask " +
			"the user anything; the tool did not run"), nil
	}
	summary, refusal := s.summarize(ctx, r, c, args)
	if refusal != nil {
		return refusal, nil
	}
	p := &ElicitParams{Message: confirmMessage(what, summary, args),
		RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)}
	var ans ElicitResult
	var err error
	if r.modern {
		err = s.askConfirmInput(r, p, &ans)
	} else {
		err = s.askConfirmLegacy(ctx, r, p, &ans)
	}
	if err != nil {
		return s.unconfirmed(ctx, r, what, err)
	}
	switch ans.Action {
	case "accept":
		return nil, nil
	case "decline":
		setOutcome(ctx, outcomeRefused, RefusalDeclined)
		return NewErrorResult("declined: the user declined " + what + "; the tool did not run. " +
			"Do not call it again unless the user asks for it."), nil
	}
	setOutcome(ctx, outcomeRefused, RefusalDeclined)
	return NewErrorResult("declined: the user cancelled the confirmation of " + what + " without answering; the tool did not run"), nil
}

// askConfirmLegacy asks the person through the client's elicitation, in
// the call's stream, waiting at most the confirmation's timeout (and not
// past a shutdown's deadline).
func (s *Server) askConfirmLegacy(ctx context.Context, r *request, p *ElicitParams, ans *ElicitResult) error {
	c := newCallCtx(ctx, time.Now().Add(s.confirmTimeout()))
	c.stop = r.peer.drain
	defer c.finish()
	res, err := Elicit(c, p)
	if err != nil {
		if callTimedOut(c) && !callTimedOut(ctx) {
			return errConfirmTimedOut
		}
		return err
	}
	*ans = *res
	return nil
}

// errConfirmTimedOut says a legacy call's person did not answer in time.
var errConfirmTimedOut = errors.New("ferry: no answer to the confirmation")

// unconfirmed is the answer to a call whose confirmation could not be
// had: a 2026-07-28 question left open goes to the client, and anything
// else is a refusal the model reads.
func (s *Server) unconfirmed(ctx context.Context, r *request, what string, err error) (*ToolResult, error) {
	var pe *Error
	switch {
	case errors.Is(err, ErrInputRequired), errors.As(err, &pe):
		return nil, err
	case errors.Is(err, errConfirmTimedOut):
		setOutcome(ctx, outcomeRefused, RefusalDeclined)
		return NewErrorResult("declined: the user did not answer the confirmation of " + what + " within " +
			formatTimeout(s.confirmTimeout()) + "; the tool did not run"), nil
	}
	if res := s.clientResult(ctx, &CallToolRequest{Name: r.target.name}, err); res != nil {
		return NewErrorResult(textOf(res) + " (to confirm " + what + "); the tool did not run"), nil
	}
	if ctx.Err() != nil {
		setOutcome(ctx, outcomeCanceled, "")
		return NewErrorResult("canceled: the call was cancelled while " + what + " waited for the user's confirmation; the tool did not run"), nil
	}
	return s.masked(ctx, r.target.name, err, nil), nil
}

// textOf is the text of a result made by [NewErrorResult].
func textOf(res *ToolResult) string {
	if len(res.Content) == 1 {
		if t, ok := res.Content[0].(*TextContent); ok {
			return t.Text
		}
	}
	return "unavailable: the user could not be asked"
}

// summarize runs the tool's summarizer, if it has one: its refusal (the
// record it would delete does not exist) is the call's answer, and any
// other error or a panic is masked, as a handler's would be.
func (s *Server) summarize(ctx context.Context, r *request, c *confirmation, args json.RawMessage) (summary string, refusal *ToolResult) {
	if c.summarize == nil {
		return "", nil
	}
	e := r.target.tool
	defer func() {
		if v := recover(); v != nil {
			summary, refusal = "", s.masked(ctx, e.tool.Name, fmt.Errorf("summarize: panic: %v", v), debug.Stack())
		}
	}()
	text, err := c.summarize(ctx, &CallToolRequest{Name: e.tool.Name, Arguments: args, Tool: &e.info})
	if err != nil {
		if res := refusalResult(ctx, err); res != nil {
			return "", res
		}
		return "", s.masked(ctx, e.tool.Name, fmt.Errorf("summarize: %w", err), nil)
	}
	return strings.TrimSpace(text), nil
}

// describeCall names a tool for the person and the model: its title and
// name ("Delete product (delete_product)"), or its name.
func describeCall(t *ToolInfo) string {
	if t.Title != "" && t.Title != t.Name {
		return fmt.Sprintf("%q (%s)", t.Title, t.Name)
	}
	return t.Name
}

// confirmMessage is what the person reads: the call, its arguments, and
// what it will change (the summarizer's words, or the tool's hints).
func confirmMessage(what, summary string, args json.RawMessage) string {
	var b strings.Builder
	b.WriteString("Allow ")
	b.WriteString(what)
	b.WriteString(" to run?")
	if list := confirmArgs(args); list != "" {
		b.WriteString("\nArguments: ")
		b.WriteString(list)
	}
	b.WriteString("\n")
	if summary == "" {
		summary = "It may delete or overwrite data, and cannot be undone by this server."
	}
	b.WriteString(summary)
	return b.String()
}

// confirmArgs lists a call's arguments as name=value, in name order, each
// value as JSON cut to maxConfirmValue characters, at most maxConfirmArgs
// of them.
func confirmArgs(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return ""
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i == maxConfirmArgs {
			fmt.Fprintf(&b, ", and %d more", len(names)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(argName(k))
		b.WriteByte('=')
		b.WriteString(cutValue(compactJSON(m[k])))
	}
	return b.String()
}

// argName is an argument's name as the person reads it: as it is when it
// is a plain name, and otherwise quoted as JSON and cut, so that a name
// (of a tool without an input schema, which takes any) cannot pass for
// another line of the message.
func argName(k string) string {
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.') {
			q, _ := json.Marshal(k)
			return cutValue(string(q))
		}
	}
	return cutValue(k)
}

// compactJSON is v without spacing.
func compactJSON(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

// cutValue cuts v to maxConfirmValue characters, marking the cut.
func cutValue(v string) string {
	if utf8.RuneCountInString(v) <= maxConfirmValue {
		return v
	}
	n := 0
	for i := range v {
		if n == maxConfirmValue {
			return v[:i] + "…"
		}
		n++
	}
	return v
}
