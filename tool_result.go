package ferry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/ferry-mcp/ferry/schema"
)

// ToolResult is the result of a tool call. Content is what the model reads;
// StructuredContent, when not nil, is the JSON value a tool with an output
// schema returns (and should mirror in a text block). IsError marks a
// failure the model should see and may correct: a bad argument or a refusal,
// not a protocol error.
type ToolResult struct {
	Content           []Content
	StructuredContent any
	IsError           bool
	// encodedLen and encoded, the length and the first byte of the raw
	// JSON the server encoded itself as StructuredContent (a typed tool's
	// output, from json.Marshal), mark it valid and compact already: it is
	// sent without a second scan while StructuredContent still holds those
	// very bytes (see [ToolResult.encodedAs]). Raw JSON set by anyone else
	// is compacted and checked. encodedLen sits in IsError's padding, so
	// that the two keep a result in its allocation size class.
	encodedLen uint32
	// Meta is sent as the result's _meta member.
	Meta    map[string]any
	encoded *byte
}

// NewErrorResult returns a [*ToolResult] with IsError set and msg as its only
// text block.
func NewErrorResult(msg string) *ToolResult {
	return &ToolResult{Content: []Content{Text(msg)}, IsError: true}
}

// appendMembers appends the result's members to an open JSON object, its
// _meta too when withMeta is set (the modern era writes _meta itself).
func (r *ToolResult) appendMembers(b []byte, withMeta bool) ([]byte, error) {
	b = appendKey(b, "content")
	b = append(b, '[')
	for i, c := range r.Content {
		if i > 0 {
			b = append(b, ',')
		}
		b = c.appendJSON(b)
	}
	b = append(b, ']')
	if r.StructuredContent != nil {
		b = append(b, `,"structuredContent":`...)
		switch v := r.StructuredContent.(type) {
		case json.RawMessage:
			// Compacted, and so checked: a newline in it would split a
			// stdio message in two, and bad JSON would corrupt the answer.
			// What the server encoded itself is both already.
			if r.encodedAs(v) {
				b = append(b, v...)
				break
			}
			var err error
			if b, err = appendCompact(b, v); err != nil {
				return b, fmt.Errorf("encoding structured content: %w", err)
			}
		default:
			data, err := json.Marshal(v)
			if err != nil {
				return b, fmt.Errorf("encoding structured content: %w", err)
			}
			b = append(b, data...)
		}
	}
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	if withMeta && len(r.Meta) > 0 {
		b = appendMeta(b, r.Meta, nil)
	}
	return b, nil
}

// markEncoded records that raw, StructuredContent, is the server's own
// encoding: compact and valid.
func (r *ToolResult) markEncoded(raw json.RawMessage) {
	if len(raw) > 0 && uint64(len(raw)) <= math.MaxUint32 {
		r.encoded, r.encodedLen = &raw[0], uint32(len(raw))
	}
}

// encodedAs reports whether raw is the very bytes markEncoded recorded,
// not merely equal ones.
func (r *ToolResult) encodedAs(raw json.RawMessage) bool {
	return r.encoded != nil && len(raw) == int(r.encodedLen) && &raw[0] == r.encoded
}

// appendCompact appends raw to b without its insignificant whitespace,
// or returns an error when raw is not one JSON value.
func appendCompact(b []byte, raw json.RawMessage) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	if err := json.Compact(buf, raw); err != nil {
		return b, err
	}
	return buf.Bytes(), nil
}

// MarshalJSON implements [json.Marshaler].
func (r *ToolResult) MarshalJSON() ([]byte, error) {
	b, err := r.appendMembers([]byte{'{'}, true)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// JSON returns a text block holding v as JSON. If v cannot be encoded, the
// block says so.
func JSON(v any) *TextContent {
	data, err := json.Marshal(v)
	if err != nil {
		return Text("(the value could not be encoded as JSON: " + err.Error() + ")")
	}
	return Text(string(data))
}

// NewResult returns a result holding the content blocks, in order.
func NewResult(content ...Content) *ToolResult { return &ToolResult{Content: content} }

// NewInvalidArgumentsResult returns the IsError result of a call whose
// arguments do not fit: "invalid arguments:" followed by each violation on
// a line of its own ("- items[3].name: must be at most 20 characters, got
// 23"). The server sends it when arguments break a tool's
// [Tool.InputSchema]; a handler that decodes its arguments further (into a
// protobuf message, a table's row) returns it for what the schema could not
// say, so that the model reads one format. It returns nil if errs is empty.
func NewInvalidArgumentsResult(errs schema.Errors) *ToolResult {
	if len(errs) == 0 {
		return nil
	}
	var sb strings.Builder
	sb.WriteString("invalid arguments:")
	for _, e := range errs {
		sb.WriteString("\n- ")
		sb.WriteString(e.Error())
	}
	return NewErrorResult(sb.String())
}
