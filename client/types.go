package client

import (
	"encoding/json"
	"strings"
)

// Every item type below keeps the JSON the server sent in Raw, so that a
// caller can print or check it verbatim; its other fields are decoded from
// it. Marshalling an item gives Raw back when it is set.

// ServerInfo is what a server says of itself when a client connects: the
// initialize result (legacy) or the server/discover result (modern).
type ServerInfo struct {
	// Name, Title and Version are the server's Implementation.
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
	// Instructions tell a model how to use the server.
	Instructions string `json:"instructions,omitempty"`
	// Capabilities is the server's capabilities object.
	Capabilities json.RawMessage `json:"capabilities,omitempty"`
	// SupportedVersions lists the versions a modern server speaks; empty
	// in the legacy era.
	SupportedVersions []string `json:"supportedVersions,omitempty"`
	// Raw is the initialize or server/discover result.
	Raw json.RawMessage `json:"-"`
}

// Tool is one tool of tools/list.
type Tool struct {
	// Name is what [Client.CallTool] calls it by; Title and Description
	// are for people and models.
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// InputSchema and OutputSchema are the JSON Schemas of the arguments
	// and of the structured content, as sent; OutputSchema is empty for a
	// tool that declares none.
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Annotations are the tool's hints; nil when the server sent none.
	Annotations *ToolAnnotations `json:"annotations,omitempty"`
	// Raw is the tool as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// ToolAnnotations are a tool's hints; a nil hint is one the server did
// not give.
type ToolAnnotations struct {
	Title           string `json:"title,omitempty"`
	ReadOnlyHint    *bool  `json:"readOnlyHint,omitempty"`
	DestructiveHint *bool  `json:"destructiveHint,omitempty"`
	IdempotentHint  *bool  `json:"idempotentHint,omitempty"`
	OpenWorldHint   *bool  `json:"openWorldHint,omitempty"`
}

// ToolResult is a tools/call result. IsError marks a tool that failed and
// says why in Content: it is not a protocol error.
type ToolResult struct {
	// Content is the result's content blocks, for the model.
	Content []Content `json:"content"`
	// StructuredContent is the JSON value of a tool with an output
	// schema, as sent; empty when the tool gave none.
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	// IsError marks a tool that failed.
	IsError bool `json:"isError,omitempty"`
	// Raw is the result as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// Text returns the text of the result's text blocks, one per line.
func (r *ToolResult) Text() string {
	var sb strings.Builder // one buffer: a message may hold very many blocks
	for i, c := range r.Content {
		if c.Type != "text" {
			continue
		}
		if i > 0 && sb.Len() > 0 {
			sb.WriteByte('\n')
		}
		sb.WriteString(c.Text)
	}
	return sb.String()
}

// Content is one content block: text, image, audio, resource_link or
// resource (embedded). Fields a type does not have are empty.
type Content struct {
	// Type is "text", "image", "audio", "resource_link" or "resource".
	Type string `json:"type"`
	// Text is the text of a text block.
	Text string `json:"text,omitempty"`
	// Data is an image's or a sound's bytes in base64, of type MIMEType.
	Data     string `json:"data,omitempty"`
	MIMEType string `json:"mimeType,omitempty"`
	// URI and Name are a resource link's.
	URI  string `json:"uri,omitempty"`
	Name string `json:"name,omitempty"`
	// Resource is an embedded resource's contents, as sent (see
	// [ResourceContents]).
	Resource json.RawMessage `json:"resource,omitempty"`
	// Raw is the block as the server sent it.
	Raw json.RawMessage `json:"-"`
}

// Text returns a text block holding s.
func Text(s string) Content { return Content{Type: "text", Text: s} }

// Role is who a message is for.
type Role string

// The roles of MCP.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Prompt is one prompt of prompts/list.
type Prompt struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Arguments   []PromptArgument `json:"arguments,omitempty"`
	Raw         json.RawMessage  `json:"-"`
}

// PromptArgument is an argument a prompt takes.
type PromptArgument struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// PromptResult is a prompts/get result.
type PromptResult struct {
	Description string          `json:"description,omitempty"`
	Messages    []PromptMessage `json:"messages"`
	Raw         json.RawMessage `json:"-"`
}

// PromptMessage is one message of a prompt or of a sampling
// conversation.
type PromptMessage struct {
	Role    Role    `json:"role"`
	Content Content `json:"content"`
}

// Resource is one resource of resources/list.
type Resource struct {
	URI         string          `json:"uri"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Size        int64           `json:"size,omitempty"` // in bytes; 0 when the server did not say
	Raw         json.RawMessage `json:"-"`
}

// ResourceTemplate is one template of resources/templates/list.
type ResourceTemplate struct {
	URITemplate string          `json:"uriTemplate"`
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description,omitempty"`
	MIMEType    string          `json:"mimeType,omitempty"`
	Raw         json.RawMessage `json:"-"`
}

// ReadResult is a resources/read result.
type ReadResult struct {
	Contents []ResourceContents `json:"contents"`
	Raw      json.RawMessage    `json:"-"`
}

// ResourceContents is one part of a resource: Text or Blob (base64).
type ResourceContents struct {
	URI      string          `json:"uri"`
	MIMEType string          `json:"mimeType,omitempty"`
	Text     string          `json:"text,omitempty"`
	Blob     string          `json:"blob,omitempty"`
	Raw      json.RawMessage `json:"-"`
}

// CompleteRequest is a completion/complete request: the argument of a
// prompt or a resource template to complete, what the user has typed of
// it, and the values of the other arguments.
type CompleteRequest struct {
	// RefType is "ref/prompt" or "ref/resource".
	RefType string
	// Name is the prompt's name, for ref/prompt.
	Name string
	// URI is the resource template, for ref/resource.
	URI string
	// Argument is the argument being completed and Value what is typed so far.
	Argument, Value string
	// Context holds the values of arguments already chosen.
	Context map[string]string
}

// CompleteResult is a completion/complete result.
type CompleteResult struct {
	// Values are the suggested values, as the server ordered them.
	Values []string `json:"values"`
	// Total is how many values the server has in all, 0 when it did not
	// say; HasMore says there are more than Values.
	Total   int  `json:"total,omitempty"`
	HasMore bool `json:"hasMore,omitempty"`
	// Raw is the completion as the server sent it.
	Raw json.RawMessage `json:"-"`
}
