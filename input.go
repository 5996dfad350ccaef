package ferry

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// inputState carries a modern multi round-trip request: the answers the
// client has given so far and the questions still open.
type inputState struct {
	mu       sync.Mutex // guards asked, requests, missing and invalid: a handler may ask from several goroutines
	answers  map[string]json.RawMessage
	asked    int
	requests map[string]json.RawMessage // key -> {"method":..,"params":..}
	missing  map[string]bool            // client capabilities a question needed and the request lacked
	invalid  *Error                     // the first answer that did not decode
	used     map[string]bool            // keys of the answers the handler read
}

// ask answers a question from the client's responses, or records it as
// open. key names it in inputRequests; if empty, it is "q1", "q2"... in the
// order asked.
func (s *inputState) ask(method, key string, params, res any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	if key == "" {
		key = "q" + strconv.Itoa(s.asked)
	}
	if a, ok := s.answers[key]; ok {
		if s.used == nil {
			s.used = make(map[string]bool)
		}
		s.used[key] = true
		if err := json.Unmarshal(a, res); err != nil {
			// A malformed answer fails the request, whatever the handler
			// makes of the error (see [Server.safeDispatch]).
			e := NewError(CodeInvalidParams, "inputResponses[%q] is not a valid %s result: %v", key, method, err)
			if s.invalid == nil {
				s.invalid = e
			}
			return e
		}
		return nil
	}
	data, err := json.Marshal(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{method, params})
	if err != nil {
		return err
	}
	if s.requests == nil {
		s.requests = make(map[string]json.RawMessage)
	}
	s.requests[key] = data
	return ErrInputRequired
}

// lack records that a question needed a client capability the request
// did not declare, and returns the error the request is answered with.
func (s *inputState) lack(capability string) error {
	s.mu.Lock()
	if s.missing == nil {
		s.missing = make(map[string]bool)
	}
	s.missing[capability] = true
	s.mu.Unlock()
	return missingCapabilities(capability)
}

// failure is the error a request is answered with when its questions
// could not be asked or answered: -32602 for an answer that did not
// decode, -32021 for the capabilities the client lacked. It is nil when
// the questions are merely open.
func (s *inputState) failure() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.invalid != nil:
		return s.invalid
	case len(s.missing) > 0:
		return missingCapabilities(sortedKeys(s.missing)...)
	}
	return nil
}

// missingCapabilities is a MissingRequiredClientCapabilityError: its
// data.requiredCapabilities is a ClientCapabilities object.
func missingCapabilities(names ...string) *Error {
	req := make(map[string]any, len(names))
	for _, n := range names {
		req[n] = struct{}{}
	}
	return &Error{Code: CodeMissingClientCapability,
		Message: "the request needs client capabilities it did not declare: " + strings.Join(names, ", "),
		Data:    map[string]any{"requiredCapabilities": req}}
}

// inputKeyKey is the context key of [WithInputKey].
type inputKeyKey struct{}

// WithInputKey returns a context under which the next question a handler
// asks with [Elicit], [CreateMessage] or [ListRoots] is named key in a
// modern input_required result's inputRequests, and is answered from the
// client's inputResponses under that key. Without it, questions are named
// "q1", "q2"... in the order asked. Keys must be unique within a request.
// Legacy sessions ask the client directly and ignore the key.
func WithInputKey(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, inputKeyKey{}, key)
}

func inputKeyFrom(ctx context.Context) string {
	k, _ := ctx.Value(inputKeyKey{}).(string)
	return k
}

// requestStateTTL bounds how long a client may take to answer.
const requestStateTTL = 10 * time.Minute

// savedState is what requestState carries between rounds, signed.
type savedState struct {
	Method  string                     `json:"m"`
	Digest  []byte                     `json:"d"`
	Expires int64                      `json:"x"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
}

// paramsDigest binds request state to the request it belongs to.
func paramsDigest(method, name string, args json.RawMessage) []byte {
	h := sha256.New()
	h.Write([]byte(method))
	h.Write([]byte{0})
	h.Write([]byte(name))
	h.Write([]byte{0})
	// Arguments are compared by value: a client may re-encode them.
	var v any
	if json.Unmarshal(args, &v) == nil {
		args, _ = json.Marshal(v)
	}
	h.Write(args)
	return h.Sum(nil)[:16]
}

// loadInput reads inputResponses and requestState from a modern retry.
func (s *Server) loadInput(method, name string, args, responses json.RawMessage, state string) (*inputState, error) {
	in := &inputState{answers: map[string]json.RawMessage{}}
	// inputResponses without a requestState answer a first round: the
	// handler uses those whose keys it asks, ignores the rest and asks
	// again for what is missing (SEP-2322).
	if state != "" {
		payload, err := s.keys.verify("request-state", state)
		var st savedState
		if err == nil {
			err = json.Unmarshal(payload, &st)
		}
		if err != nil || st.Method != method || string(st.Digest) != string(paramsDigest(method, name, args)) {
			return nil, NewError(CodeInvalidParams, "requestState is not valid for this request: retry the request from the start")
		}
		if time.Now().Unix() > st.Expires {
			return nil, NewError(CodeInvalidParams, "requestState has expired: retry the request from the start")
		}
		in.answers = st.Answers
		if in.answers == nil {
			in.answers = map[string]json.RawMessage{}
		}
	}
	if len(responses) > 0 && string(responses) != "null" {
		var fresh map[string]json.RawMessage
		if err := json.Unmarshal(responses, &fresh); err != nil {
			return nil, NewError(CodeInvalidParams, "inputResponses must be an object keyed by the inputRequests keys")
		}
		for k, v := range fresh {
			in.answers[k] = v
		}
	}
	return in, nil
}

// appendInputRequired appends an input_required result's members.
func (s *Server) appendInputRequired(b []byte, method, name string, args json.RawMessage, in *inputState) []byte {
	// Only the answers the handler read are kept: keys it never asked for
	// are not carried from round to round.
	kept := make(map[string]json.RawMessage, len(in.used))
	for k := range in.used {
		kept[k] = in.answers[k]
	}
	st := savedState{Method: method, Digest: paramsDigest(method, name, args),
		Expires: time.Now().Add(requestStateTTL).Unix(), Answers: kept}
	payload, _ := json.Marshal(st)
	b = appendKey(b, "inputRequests")
	b = append(b, '{')
	for i, k := range sortedKeys(in.requests) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonrpc.AppendString(b, k)
		b = append(b, ':')
		b = append(b, in.requests[k]...)
	}
	b = append(b, '}')
	b = appendKey(b, "requestState")
	return jsonrpc.AppendString(b, s.keys.sign("request-state", payload))
}

// stateKey is what a request state is bound to besides the method and the
// arguments: the tool, prompt or URI, and the caller, so that a state
// issued to one principal is refused for another.
func stateKey(ctx context.Context, key string) string {
	if p, ok := PrincipalFromContext(ctx); ok {
		return key + "\x00" + p
	}
	return key
}

// loadModernInput reads the answers a modern retry carries, for the
// methods that may ask the client something.
func (s *Server) loadModernInput(ctx context.Context, r *request, key string, p *wireParams) error {
	if !r.modern {
		return nil
	}
	in, err := s.loadInput(r.method, stateKey(ctx, key), p.Arguments, p.InputResponses, p.RequestState)
	r.input = in
	return err
}

// inputPending reports whether a modern handler left questions open.
// A question that needed a capability the client lacks, or whose answer
// did not decode, counts too: the answer is then an error (see
// [inputState.failure]).
func (r *request) inputPending() bool {
	if r.input == nil {
		return false
	}
	r.input.mu.Lock()
	defer r.input.mu.Unlock()
	return len(r.input.requests) > 0 || len(r.input.missing) > 0 || r.input.invalid != nil
}
