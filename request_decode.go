package ferry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file decodes what a client sends: a message, or a 2025-03-26 batch,
// read once by [jsonrpc.Decoder], which checks the JSON, its nesting and
// the envelope, and hands over the params members as it meets them; the
// members Ferry reads on every call are decoded here by hand, the others
// with encoding/json on their own bytes.
//
// The params members Ferry reads are matched exactly: "NAME" is not
// "name" (encoding/json would take it for it). A case variant of one, and
// one sent twice, are refused as invalid params, as the envelope's are
// refused as invalid requests: an intermediary reading the body with
// another decoder (the first of two members, or a case variant, as
// encoding/json does) must not act on a different call than Ferry.

// newDecoder returns a message decoder bounding nesting at maxDepth.
func newDecoder(maxDepth int) jsonrpc.Decoder {
	return jsonrpc.Decoder{MaxDepth: maxDepth, Methods: decodeMethods}
}

// decodeMessage decodes a message (not a batch) and its params in one
// pass. err is an [*Error] for a message refused whole, answered with no
// id (not JSON, nested deeper than [Limits.MaxJSONDepth], an
// envelope member twice or as a case variant), or says why the message is
// not JSON-RPC; [decodeError] answers either. The message owns its bytes:
// it does not alias data.
func (s *Server) decodeMessage(data []byte) (incoming, error) {
	d := new(decodedMessage)
	dc := newDecoder(s.maxDepth)
	r, err := dc.Decode(data, &d.m, d)
	if err != nil {
		return incoming{}, refusal(err, s.maxDepth)
	}
	d.own()
	return d.incoming(r), r.Err
}

// decodedBatch is a decoded 2025-03-26 batch, and the [jsonrpc.Batch] of
// its decode: it keeps the first elements, as many as the batch limit
// serves, and only counts the others, which are checked but not kept: a
// batch over the limit is refused whole, and however many elements a
// body crams in, they cost no memory.
type decodedBatch struct {
	items []incoming      // derr says why an element is not a valid JSON-RPC message
	n     int             // the elements in the batch
	max   int             // the elements kept at most
	last  *decodedMessage // the element being decoded, if kept
	spare decodedMessage  // where the elements not kept go
}

// decodeBatch decodes a batch, and the params of its first max elements,
// in one pass. err is an [*Error] refusing the whole batch, answered with
// no id: not JSON, nested too deep, an element's envelope member twice or
// as a case variant, or no element at all.
func (s *Server) decodeBatch(data []byte, max int) (*decodedBatch, error) {
	b := &decodedBatch{max: max}
	dc := newDecoder(s.maxDepth)
	if err := dc.DecodeBatch(data, b); err != nil {
		return nil, refusal(err, s.maxDepth)
	}
	return b, nil
}

// Next implements [jsonrpc.Batch].
func (b *decodedBatch) Next() (*jsonrpc.Message, jsonrpc.Params) {
	if b.n >= b.max {
		b.last, b.spare = nil, decodedMessage{}
		return &b.spare.m, nil
	}
	b.last = new(decodedMessage)
	return &b.last.m, b.last
}

// Done implements [jsonrpc.Batch].
func (b *decodedBatch) Done(r jsonrpc.Result) {
	b.n++
	if d := b.last; d != nil {
		d.own()
		in := d.incoming(r)
		in.derr = r.Err
		b.items = append(b.items, in)
	}
}

// refusal is the error answering input refused whole: a parse error when
// it is not JSON or nests more than maxDepth levels (it is not decoded),
// an invalid request for an envelope member twice or as a case variant,
// or for an empty batch.
func refusal(err error, maxDepth int) *Error {
	switch {
	case errors.Is(err, jsonrpc.ErrTooDeep):
		return &Error{Code: CodeParseError, Message: "parse error: the message nests arrays and objects more than " +
			strconv.Itoa(maxDepth) + " levels deep"}
	case errors.Is(err, jsonrpc.ErrParse):
		return &Error{Code: CodeParseError, Message: "parse error: the message is not valid JSON"}
	case errors.Is(err, jsonrpc.ErrEmptyBatch):
		return &Error{Code: CodeInvalidRequest, Message: err.Error()}
	}
	return &Error{Code: CodeInvalidRequest, Message: "invalid request: " + strings.TrimPrefix(err.Error(), "jsonrpc: ")}
}

// toolCalls returns the tools a body calls, for [ParseToolCalls], as the
// server reads the body: it fails where the server refuses the body or a
// call's params, so that an authorizer never judges a call the server
// reads otherwise. Every message naming the method counts, even one the
// server refuses: an authorizer errs on the side of judging too much.
func toolCalls(body []byte) ([]string, error) {
	var b toolCallBatch
	dc := newDecoder(jsontext.MaxDepth) // the server's bound is its own
	var err error
	if jsonrpc.IsBatch(body) {
		err = dc.DecodeBatch(body, &b)
	} else {
		m, p := b.Next()
		var r jsonrpc.Result
		if r, err = dc.Decode(body, m, p); err == nil {
			b.Done(r)
		}
	}
	if err == nil {
		err = b.err
	}
	return b.names, err
}

// toolCallBatch collects the tools the messages of a body call, decoding
// each into the same place.
type toolCallBatch struct {
	d     decodedMessage
	names []string
	err   error // the first call whose params the server refuses
}

// Next implements [jsonrpc.Batch].
func (b *toolCallBatch) Next() (*jsonrpc.Message, jsonrpc.Params) {
	b.d = decodedMessage{}
	return &b.d.m, &b.d
}

// Done implements [jsonrpc.Batch].
func (b *toolCallBatch) Done(r jsonrpc.Result) {
	switch {
	case b.d.m.Method != "tools/call" || b.err != nil:
	case r.ParamsErr != nil:
		b.err = fmt.Errorf("invalid params: %w", r.ParamsErr)
	default:
		b.names = append(b.names, b.d.p.Name)
	}
}

// decodedMessage is a message and its params, decoded into one
// allocation: the [jsonrpc.Params] of its decode.
type decodedMessage struct {
	m        jsonrpc.Message
	p        wireParams
	seen     uint32 // the params members read, one bit per paramMember
	seenMeta uint16 // the _meta members read, one bit per metaMember
}

// incoming returns the decoded message with the decode's result r.
func (d *decodedMessage) incoming(r jsonrpc.Result) incoming {
	in := incoming{m: &d.m, kind: r.Kind, p: &d.p}
	if r.ParamsErr != nil {
		in.perr = NewError(CodeInvalidParams, "invalid params: %v", r.ParamsErr)
	}
	return in
}

// own copies the parts of the input the message keeps (id, result,
// arguments, progress token, client info) into one allocation of their own: the input
// may be a pooled buffer that serves the next request while a handler
// still holds its arguments.
func (d *decodedMessage) own() {
	d.m.Params = nil // read: nothing uses it after the decode
	n := len(d.m.ID) + len(d.m.Result) + len(d.p.Arguments) + len(d.p.Meta.ProgressToken) + len(d.p.Meta.ClientInfo)
	if n == 0 {
		return
	}
	buf := make([]byte, 0, n)
	d.m.ID, buf = keep(d.m.ID, buf)
	d.m.Result, buf = keep(d.m.Result, buf)
	d.p.Arguments, buf = keep(d.p.Arguments, buf)
	d.p.Meta.ProgressToken, buf = keep(d.p.Meta.ProgressToken, buf)
	d.p.Meta.ClientInfo, _ = keep(d.p.Meta.ClientInfo, buf)
}

// keep appends span to buf and returns the copy, which an append cannot
// grow into the next one, and buf.
func keep(span, buf []byte) (kept, rest []byte) {
	if span == nil {
		return nil, buf
	}
	start := len(buf)
	buf = append(buf, span...)
	return buf[start:len(buf):len(buf)], buf
}

// paramMember is a params member Ferry reads, by its bit in
// decodedMessage.seen.
type paramMember uint8

// The params members Ferry reads. The first five it reads on every call
// and decodes by hand; the others with encoding/json.
const (
	paramName paramMember = iota
	paramArguments
	paramURI
	paramCursor
	paramMeta
	paramProtocolVersion
	paramCapabilities
	paramLevel
	paramInputResponses
	paramRequestState
	paramRef
	paramArgument
	paramContext
	paramRequestID
	paramNotifications
	paramTaskID
	paramNone
)

var paramNames = [...]string{"name", "arguments", "uri", "cursor", "_meta", "protocolVersion", "capabilities",
	"level", "inputResponses", "requestState", "ref", "argument", "context", "requestId", "notifications", "taskId"}

// paramOf returns the member called name, or paramNone.
func paramOf(name []byte) paramMember {
	for i, n := range paramNames {
		if string(name) == n {
			return paramMember(i)
		}
	}
	return paramNone
}

// Member implements [jsonrpc.Params]: it decodes one params member into
// d.p, refusing a member of the wrong type, one sent twice and a case
// variant of one Ferry reads.
func (d *decodedMessage) Member(name, value []byte) error {
	k := paramOf(name)
	if k == paramNone {
		return checkVariant(name, paramNames[:], "")
	}
	if d.seen&(1<<k) != 0 {
		return fmt.Errorf("%q is sent twice", paramNames[k])
	}
	d.seen |= 1 << k
	p := &d.p
	switch k {
	case paramName:
		return stringMember(&p.Name, "", "name", value)
	case paramArguments:
		p.Arguments = value
	case paramURI:
		return stringMember(&p.URI, "", "uri", value)
	case paramTaskID:
		return stringMember(&p.TaskID, "", "taskId", value)
	case paramCursor:
		return d.cursor(value)
	case paramMeta:
		return d.meta(value)
	default:
		return d.cold(k, value)
	}
	return nil
}

// cursor decodes the cursor member: a string, or null for none.
func (d *decodedMessage) cursor(value []byte) error {
	if jsontext.TypeOf(value) == jsontext.Null {
		return nil
	}
	var s string
	if err := stringMember(&s, "", "cursor", value); err != nil {
		return err
	}
	d.p.Cursor = &s
	return nil
}

// cold decodes a member Ferry reads for some methods only, with
// encoding/json. A member of the wrong type is refused naming the member
// where it is wrong ("ref.type").
func (d *decodedMessage) cold(k paramMember, value []byte) error {
	p := &d.p
	dst := [...]any{
		paramProtocolVersion: &p.ProtocolVersion, paramCapabilities: &p.Capabilities, paramLevel: &p.Level,
		paramInputResponses: &p.InputResponses, paramRequestState: &p.RequestState, paramRef: &p.Ref,
		paramArgument: &p.Argument, paramContext: &p.Context, paramRequestID: &p.RequestID,
		paramNotifications: &p.Notifications,
	}[k]
	err := json.Unmarshal(value, dst)
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		path := paramNames[k]
		if te.Field != "" {
			path += "." + te.Field
		}
		return fmt.Errorf("%q must be %s", path, jsonKind(te.Type))
	}
	return err
}

// jsonKind names the JSON values a Go type decodes from.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonKind(t.Elem())
	}
	return "an object"
}

// stringMember decodes value into *dst: a string, or null for the empty
// string, as encoding/json reads it. where is "" for a params member, or
// the object holding it ("_meta"), for the error.
func stringMember(dst *string, where, name string, value []byte) error {
	switch jsontext.TypeOf(value) {
	case jsontext.String:
		*dst = jsontext.Unquote(value)
	case jsontext.Null:
	default:
		return fmt.Errorf("%s must be a string", memberPath(where, name))
	}
	return nil
}

// memberPath names a member for an error: "name", or `_meta field
// "progressToken"`.
func memberPath(where, name string) string {
	if where == "" {
		return strconv.Quote(name)
	}
	return where + " field " + strconv.Quote(name)
}

// checkVariant refuses name when it differs from one of known only by
// case (Unicode folding, as encoding/json matches names).
func checkVariant(name []byte, known []string, where string) error {
	for _, k := range known {
		if len(name) >= len(k) && len(name) <= 3*len(k) && bytes.EqualFold(name, []byte(k)) {
			return fmt.Errorf("%s is not a member; the member is %s", memberPath(where, string(name)), strconv.Quote(k))
		}
	}
	return nil
}

// metaMember is a _meta member Ferry reads, by its bit in
// decodedMessage.seenMeta.
type metaMember uint8

// The _meta members Ferry reads.
const (
	metaProgressToken metaMember = iota
	metaVersion
	metaCaps
	metaLogLevel
	metaTraceParent
	metaTraceState
	metaBaggage
	metaMaxResult
	metaClientInfo
	metaNone
)

var metaNames = [...]string{"progressToken", "io.modelcontextprotocol/protocolVersion",
	"io.modelcontextprotocol/clientCapabilities", "io.modelcontextprotocol/logLevel",
	"traceparent", "tracestate", "baggage", MetaMaxResultBytes, "io.modelcontextprotocol/clientInfo"}

// meta decodes the _meta member: an object, or null for none.
func (d *decodedMessage) meta(value []byte) error {
	switch jsontext.TypeOf(value) {
	case jsontext.Null:
		return nil
	case jsontext.Object:
	default:
		return errors.New(`"_meta" must be an object`)
	}
	var err error
	jsontext.EachMember(value, func(key, v []byte) bool {
		var buf [64]byte
		name := key[1 : len(key)-1]
		if bytes.IndexByte(name, '\\') >= 0 {
			name = jsontext.AppendUnquoted(buf[:0], name)
		}
		err = d.metaMember(name, v)
		return err == nil
	})
	return err
}

// metaMember decodes one member of _meta.
func (d *decodedMessage) metaMember(name, value []byte) error {
	k := metaNone
	for i, n := range metaNames {
		if string(name) == n {
			k = metaMember(i)
			break
		}
	}
	if k == metaNone {
		return checkVariant(name, metaNames[:], "_meta")
	}
	if d.seenMeta&(1<<k) != 0 {
		return fmt.Errorf("%s is sent twice", memberPath("_meta", metaNames[k]))
	}
	d.seenMeta |= 1 << k
	m := &d.p.Meta
	switch k {
	case metaProgressToken:
		m.ProgressToken = value
	case metaCaps:
		_ = m.Caps.UnmarshalJSON(value) // it never fails
	case metaVersion, metaLogLevel:
		return d.metaString(k, value)
	case metaMaxResult:
		return decodeMaxResult(&m.MaxResultBytes, value)
	case metaClientInfo:
		m.ClientInfo = value // read by an observer only (observer_client.go)
	default:
		if m.TraceContext == nil {
			m.TraceContext = new(TraceContext)
		}
		field := [...]*string{metaTraceParent: &m.TraceParent, metaTraceState: &m.TraceState, metaBaggage: &m.Baggage}[k]
		return stringMember(field, "_meta", metaNames[k], value)
	}
	return nil
}

// metaString decodes the version or the log level, without allocating
// for a known one.
func (d *decodedMessage) metaString(k metaMember, value []byte) error {
	switch jsontext.TypeOf(value) {
	case jsontext.String:
	case jsontext.Null:
		return nil
	default:
		return fmt.Errorf("%s must be a string", memberPath("_meta", metaNames[k]))
	}
	if k == metaVersion {
		d.p.Meta.Version = versionJSON(jsontext.UnquoteKnown(value, supportedVersions))
	} else {
		d.p.Meta.LogLevel = jsontext.UnquoteKnown(value, levelNames[:])
	}
	return nil
}

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

	// tasks/get, tasks/update, tasks/cancel
	TaskID string `json:"taskId"`
}

// requestMeta is a request's _meta member.
type requestMeta struct {
	ProgressToken json.RawMessage `json:"progressToken"`
	Version       versionJSON     `json:"io.modelcontextprotocol/protocolVersion"`
	Caps          capsJSON        `json:"io.modelcontextprotocol/clientCapabilities"`
	LogLevel      string          `json:"io.modelcontextprotocol/logLevel"`
	// MaxResultBytes is the client's own bound on a tool's result (see
	// [MetaMaxResultBytes]); 0 when it states none.
	MaxResultBytes int64 `json:"io.github.ferry-mcp/maxResultBytes"`
	// ClientInfo is the client's io.modelcontextprotocol/clientInfo (raw
	// JSON, owned), which only an observer reads: its name is decoded
	// when one is set (see [clientName]).
	ClientInfo json.RawMessage `json:"io.modelcontextprotocol/clientInfo"`
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
					case "extensions":
						c.caps.ext = declaredExtensions(data[k+1:])
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

// decodeError is the response to a message that did not decode: a
// refusal of the whole message (an [*Error], answered with no id, see
// [Server.decodeMessage]), or an invalid request, echoing its id when it
// can be read.
func decodeError(m *jsonrpc.Message, err error) []byte {
	if e, ok := errors.AsType[*Error](err); ok {
		return appendErrorResponse(nil, nil, e)
	}
	var id json.RawMessage
	if m.ValidID() {
		id = m.ID
	}
	return jsonrpc.AppendError(nil, id, int64(CodeInvalidRequest), "invalid request: "+err.Error(), nil)
}

// declaredExtensions returns the extensions Ferry knows among the members
// of the object that starts data (after spaces), the extensions member of
// a client's capabilities; data is valid JSON, checked by the decoder.
func declaredExtensions(data []byte) extensions {
	i := jsontext.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return 0
	}
	var s extensions
	jsontext.EachMember(data[i:], func(key, _ []byte) bool {
		if bytes.IndexByte(key, '\\') >= 0 { // rare: decoded, as the legacy era's encoding/json reads it
			s |= extensions(extensionOf(jsontext.Unquote(key)))
		} else if len(key) >= 2 {
			s |= extensions(extensionOf(string(key[1 : len(key)-1])))
		}
		return true
	})
	return s
}
