package ferry

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// wireParams is the union of the params members Ferry reads, so a request's
// params are decoded once.
type wireParams struct {
	Meta requestMeta `json:"_meta"`

	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	URI       string          `json:"uri"`
	Cursor    *string         `json:"cursor"`

	// initialize
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`

	// logging/setLevel
	Level string `json:"level"`

	// modern retries
	InputResponses json.RawMessage `json:"inputResponses"`
	RequestState   string          `json:"requestState"`

	// completion/complete
	Ref *struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument *struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
	Context *struct {
		Arguments map[string]string `json:"arguments"`
	} `json:"context"`

	// notifications/cancelled
	RequestID json.RawMessage `json:"requestId"`

	// subscriptions/listen
	Notifications *listenFilter `json:"notifications"`
}

// requestMeta is a request's _meta member.
type requestMeta struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Version       versionJSON     `json:"io.modelcontextprotocol/protocolVersion"`
	Caps          capsJSON        `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel      string          `json:"io.modelcontextprotocol/logLevel"`
	// The W3C trace context and baggage, for [ServerOptions.Observer]:
	// decoded into a TraceContext only when the request carries one, so
	// that a request without costs a pointer.
	*TraceContext
}

// incoming is a decoded message: the envelope, its params, and the error
// to answer when its params did not decode (invalid params).
type incoming struct {
	m    *jsonrpc.Message
	kind jsonrpc.Kind
	p    *wireParams
	perr error
	derr error // a batch element's decoding error (see [decodeBatch])
}

// decodeMessage decodes a message and its params in one pass. err reports
// a message that is not JSON or not JSON-RPC (see [decodeError]).
func decodeMessage(data []byte) (incoming, error) {
	p := new(wireParams)
	m, kind, err, perr := jsonrpc.DecodeWith(data, p)
	in := incoming{m: m, kind: kind, p: p}
	if perr != nil {
		in.perr = NewError(CodeInvalidParams, "invalid params: %v", perr)
	}
	return in, err
}

// checkShape refuses a message (or batch) that nests deeper than
// [Limits.MaxJSONDepth] (a parse error: it is not decoded) or
// whose envelope repeats a member or has a case variant of one (an
// invalid request), before it is decoded. The error has no id, since the
// id cannot be trusted.
func (s *Server) checkShape(data []byte) error {
	err := jsonrpc.CheckShape(data, s.maxDepth)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, jsonrpc.ErrTooDeep):
		return &Error{Code: CodeParseError, Message: "parse error: the message nests arrays and objects more than " +
			strconv.Itoa(s.maxDepth) + " levels deep"}
	}
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + strings.TrimPrefix(err.Error(), "jsonrpc: ")}
}

// capsJSON decodes _meta's clientCapabilities in the params pass, without a
// map: it records whether the member was there, whether it is an object,
// and which of the capabilities the server acts on it declares (by their
// top-level keys, whatever their values, as parseClientCaps reads them).
// encoding/json has checked the syntax before it calls UnmarshalJSON. A key
// written with escapes ("sa\u006dpling") is not recognised: the capability
// then counts as not declared, so the server asks nothing it may not.
type capsJSON struct {
	seen, object bool
	caps         clientCaps
}

// UnmarshalJSON implements [json.Unmarshaler].
func (c *capsJSON) UnmarshalJSON(data []byte) error {
	c.seen = true
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	c.object = true
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 {
				k := j + 1
				for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
					k++
				}
				if k < len(data) && data[k] == ':' {
					switch string(data[i+1 : j]) {
					case "sampling":
						c.caps.sampling = true
					case "elicitation":
						c.caps.elicitation = true
					case "roots":
						c.caps.roots = true
					}
				}
			}
			i = j
		}
	}
	return nil
}

// versionJSON decodes a protocol version, interning the known ones.
type versionJSON string

// UnmarshalJSON implements [json.Unmarshaler].
func (v *versionJSON) UnmarshalJSON(data []byte) error {
	if len(data) > 2 && data[0] == '"' && data[len(data)-1] == '"' {
		for _, known := range supportedVersions {
			if string(data[1:len(data)-1]) == known {
				*v = versionJSON(known)
				return nil
			}
		}
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*v = versionJSON(s)
	return nil
}

// decodeError is the response to a message that did not decode.
func decodeError(m *jsonrpc.Message, err error) []byte {
	if errors.Is(err, jsonrpc.ErrParse) {
		return jsonrpc.AppendError(nil, nil, int64(CodeParseError), "parse error: the message is not valid JSON", nil)
	}
	var id json.RawMessage
	if m.ValidID() {
		id = m.ID
	}
	return jsonrpc.AppendError(nil, id, int64(CodeInvalidRequest), "invalid request: "+err.Error(), nil)
}
