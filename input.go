package ferry

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
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
	mu       sync.Mutex // guards asked and requests: a handler may ask from several goroutines
	answers  map[string]json.RawMessage
	asked    int
	requests map[string]json.RawMessage // key -> {"method":..,"params":..}
}

func (s *inputState) ask(method string, params, res any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked++
	key := "q" + strconv.Itoa(s.asked)
	if a, ok := s.answers[key]; ok {
		if err := json.Unmarshal(a, res); err != nil {
			return NewError(CodeInvalidParams, "inputResponses[%q] is not a valid %s result: %v", key, method, err)
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

// requestStateTTL bounds how long a client may take to answer.
const requestStateTTL = 10 * time.Minute

// savedState is what requestState carries between rounds, signed.
type savedState struct {
	Method  string                     `json:"m"`
	Digest  []byte                     `json:"d"`
	Expires int64                      `json:"x"`
	Answers map[string]json.RawMessage `json:"a,omitempty"`
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

// loadInput reads inputResponses and requestState from a modern retry.
func (s *Server) loadInput(method, name string, args, responses json.RawMessage, state string) (*inputState, error) {
	in := &inputState{answers: map[string]json.RawMessage{}}
	hasResponses := len(responses) > 0 && string(responses) != "null" && string(responses) != "{}"
	if hasResponses && state == "" {
		return nil, NewError(CodeInvalidParams, "inputResponses without the requestState they answer: echo the requestState of the input_required result")
	}
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
	st := savedState{Method: method, Digest: paramsDigest(method, name, args),
		Expires: time.Now().Add(requestStateTTL).Unix(), Answers: in.answers}
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
// arguments: the tool, prompt or URI, and the caller's subject, so that a
// state issued to one principal is refused for another. The encoding is
// unambiguous, so that no name can pass for another name and a subject
// ("x\x00alice" asked anonymously is not "x" asked by alice): an anonymous
// caller's key is the name itself unless it starts with NUL; otherwise, and
// for every principal, it is NUL, the name's length and the name, then "p"
// and the subject for a principal. The common anonymous case allocates
// nothing.
func stateKey(ctx context.Context, key string) string {
	p, ok := PrincipalFromContext(ctx)
	if !ok && !strings.HasPrefix(key, "\x00") {
		return key
	}
	var sb strings.Builder
	sb.Grow(1 + binary.MaxVarintLen64 + len(key) + 1 + 32)
	sb.WriteByte(0)
	var n [binary.MaxVarintLen64]byte
	sb.Write(binary.AppendUvarint(n[:0], uint64(len(key))))
	sb.WriteString(key)
	if ok {
		sb.WriteByte('p')
		sb.WriteString(p.Subject)
	}
	return sb.String()
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
func (r *request) inputPending() bool { return r.input != nil && len(r.input.requests) > 0 }
