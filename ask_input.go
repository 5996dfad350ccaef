package ferry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ferry-mcp/ferry/internal/jsontext"
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
	named    map[string]bool            // keys asked so far in this run of the handler
	// confirmAsked says the request state showed the confirmation asked
	// (confirm_input.go).
	confirmAsked bool
}

// ask answers a question from the client's responses, or records it as
// open. key names it in inputRequests; if empty, it is "q1", "q2"... in the
// order asked.
func (s *inputState) ask(method, key string, params, res any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	switch {
	case key == "":
		key = "q" + strconv.Itoa(s.asked)
	case generatedKey(key):
		return fmt.Errorf("ferry: input key %q has the form of the generated names (q1, q2...): choose another", key)
	case s.named[key]:
		return fmt.Errorf("ferry: input key %q names two questions of one request: give each question its own WithInputKey", key)
	}
	if s.named == nil {
		s.named = make(map[string]bool)
	}
	s.named[key] = true
	if a, ok := s.answers[key]; ok {
		if s.used == nil {
			s.used = make(map[string]bool)
		}
		s.used[key] = true
		if err := json.Unmarshal(a, res); err != nil {
			// A malformed answer fails the request, whatever the handler
			// makes of the error (see [Server.appendInputRequired]).
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

// generatedKey reports whether key has the form of the names questions get
// without [WithInputKey]: "q" and digits.
func generatedKey(key string) bool {
	if len(key) < 2 || key[0] != 'q' {
		return false
	}
	for _, c := range key[1:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
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

// WithInputKey returns a context under which a question the handler asks
// with [Elicit], [CreateMessage] or [ListRoots] is named key in a modern
// input_required result's inputRequests, and is answered from the client's
// inputResponses under that key. Derive one context per question: every
// question asked under the returned context is named key, and a second
// question with a key already asked fails with an error, as does a key of
// the form "q1", "q2"..., the names questions get without WithInputKey, in
// the order asked. Legacy sessions ask the client directly and ignore the
// key, so those two errors come in the modern era only: test a handler
// that names its questions in that era.
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
	// Confirm says the confirmation of the call was asked (confirm_input.go).
	Confirm bool `json:"c,omitempty"`
}

// paramsDigest binds request state to the request it belongs to: the
// method, the tool, prompt or URI key, and the arguments. Each part is
// length-prefixed, so no two (key, arguments) pairs run together.
//
// Arguments are compared by value, since a client may re-encode them
// (spacing, key order, escapes), but numbers keep their exact text: a state
// issued for 9007199254740993 must not be accepted for 9007199254740992,
// which is the same float64.
func paramsDigest(method, name string, args json.RawMessage) []byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	for _, part := range [...][]byte{[]byte(method), []byte(name), canonicalJSON(args)} {
		h.Write(binary.AppendUvarint(n[:0], uint64(len(part))))
		h.Write(part)
	}
	return h.Sum(nil)[:16]
}

// canonicalJSON re-encodes a JSON value with sorted keys and no spacing,
// keeping each number's text as sent. Text that does not decode is
// returned as it is.
func canonicalJSON(b json.RawMessage) []byte {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return b
	}
	out, err := json.Marshal(v)
	if err != nil {
		return b
	}
	return out
}

// loadInput reads inputResponses and requestState from a modern retry into
// in, which the caller provides (a field of the request, so that a call
// allocates no state of its own), and returns in.
func (s *Server) loadInput(in *inputState, method, name string, args, responses json.RawMessage, state string) (*inputState, error) {
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
		in.answers, in.confirmAsked = st.Answers, st.Confirm
	}
	if len(responses) > 0 && string(responses) != "null" {
		var fresh map[string]json.RawMessage
		if err := json.Unmarshal(responses, &fresh); err != nil {
			return nil, NewError(CodeInvalidParams, "inputResponses must be an object keyed by the inputRequests keys")
		}
		if in.answers == nil {
			in.answers = make(map[string]json.RawMessage, len(fresh))
		}
		for k, v := range fresh {
			in.answers[k] = v
		}
	}
	return in, nil
}

// appendInputRequired appends the members of the input_required result
// that answers r, whose handler asked the client something, or returns
// the error to answer with when a question could not be asked or its
// answer did not decode (see [inputState.failure]).
func (s *Server) appendInputRequired(ctx context.Context, r *request, b []byte) ([]byte, error) {
	in := r.reply.input
	if failed := in.failure(); failed != nil {
		return b, failed
	}
	r.reply.inputRequired, r.reply.resultMeta = true, nil
	return s.appendInputRequests(b, r.method, stateKey(ctx, r.target.name), r.params.Arguments, in), nil
}

// appendInputRequests appends an input_required result's inputRequests
// and requestState, which binds the answers kept to the request.
func (s *Server) appendInputRequests(b []byte, method, name string, args json.RawMessage, in *inputState) []byte {
	// Only the answers the handler read are kept: keys it never asked for
	// are not carried from round to round.
	kept := make(map[string]json.RawMessage, len(in.used))
	for k := range in.used {
		kept[k] = in.answers[k]
	}
	st := savedState{Method: method, Digest: paramsDigest(method, name, args),
		Expires: time.Now().Add(requestStateTTL).Unix(), Answers: kept, Confirm: in.askedConfirm()}
	payload, _ := json.Marshal(st)
	b = appendKey(b, "inputRequests")
	b = append(b, '{')
	for i, k := range sortedKeys(in.requests) {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsontext.AppendString(b, k)
		b = append(b, ':')
		b = append(b, in.requests[k]...)
	}
	b = append(b, '}')
	b = appendKey(b, "requestState")
	return jsontext.AppendString(b, s.keys.sign("request-state", payload))
}

// stateKey is what a request state is bound to besides the method and the
// arguments: the tool, prompt or URI, and the caller's issuer and
// subject, so that a state issued to one principal is refused for another.
// The encoding is unambiguous, so that no name can pass for another name
// and a caller ("x\x00alice" asked anonymously is not "x" asked by alice):
// an anonymous caller's key is the name itself unless it starts with NUL;
// otherwise, and for every principal, it is NUL, the name's length and the
// name, then for a principal "p" and the subject if it has no issuer, or
// "i", the issuer's length, the issuer and the subject. The common
// anonymous case allocates nothing.
func stateKey(ctx context.Context, key string) string {
	p, ok := PrincipalFromContext(ctx)
	if !ok && !strings.HasPrefix(key, "\x00") {
		return key
	}
	var sb strings.Builder
	sb.Grow(1 + 2*binary.MaxVarintLen64 + len(key) + 1 + 32 + 32)
	sb.WriteByte(0)
	var n [binary.MaxVarintLen64]byte
	sb.Write(binary.AppendUvarint(n[:0], uint64(len(key))))
	sb.WriteString(key)
	switch {
	case ok && p.Issuer == "":
		sb.WriteByte('p')
		sb.WriteString(p.Subject)
	case ok:
		sb.WriteByte('i')
		sb.Write(binary.AppendUvarint(n[:0], uint64(len(p.Issuer))))
		sb.WriteString(p.Issuer)
		sb.WriteString(p.Subject)
	}
	return sb.String()
}

// loadModernInput reads the answers a modern retry carries, for the
// methods that may ask the client something.
func (s *Server) loadModernInput(ctx context.Context, r *request) error {
	if !r.carriesAnswers() {
		return nil
	}
	p := r.params
	in, err := s.loadInput(r.inputState(), r.method, stateKey(ctx, r.target.name), p.Arguments, p.InputResponses, p.RequestState)
	if r.target.tool != nil && r.target.tool.confirm != nil {
		return s.loadConfirmInput(ctx, r, in, err)
	}
	return err
}

// inputPending reports whether a modern handler left questions open.
// A question that needed a capability the client lacks, or whose answer
// did not decode, counts too: the answer is then an error (see
// [inputState.failure]).
func (r *request) inputPending() bool {
	r.reply.mu.Lock()
	in := r.reply.input
	r.reply.mu.Unlock()
	if in == nil {
		return false
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	return len(in.requests) > 0 || len(in.missing) > 0 || in.invalid != nil
}
