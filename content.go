package ferry

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// Content is one block of a tool result, a prompt message or a sampling
// message: [*TextContent], [*ImageContent], [*AudioContent], [*ResourceLink]
// or [*EmbeddedResource]. The set is closed.
type Content interface {
	json.Marshaler
	appendJSON(b []byte) []byte
}

// Role is who a message or an annotation is for.
type Role string

// The roles of MCP.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Annotations tell a client how to use a content block or a resource.
type Annotations struct {
	Audience     []Role   `json:"audience,omitempty"`
	Priority     *float64 `json:"priority,omitempty"`
	LastModified string   `json:"lastModified,omitempty"`
}

// TextContent is a block of text.
type TextContent struct {
	Text        string
	Annotations *Annotations
}

// ImageContent is an image; Data holds the raw bytes (sent as base64).
type ImageContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
}

// AudioContent is a sound; Data holds the raw bytes (sent as base64).
type AudioContent struct {
	Data        []byte
	MIMEType    string
	Annotations *Annotations
}

// ResourceLink points at a resource the client may read.
type ResourceLink struct {
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
	// Size is the resource's size in bytes, if known; zero means unknown.
	Size        int64
	Annotations *Annotations
}

// EmbeddedResource carries a resource's contents inside a result.
type EmbeddedResource struct {
	Resource    ResourceContents
	Annotations *Annotations
}

// ResourceContents is the contents of a resource: Text, or Blob (raw bytes,
// sent as base64) when Blob is not nil.
type ResourceContents struct {
	URI      string
	MIMEType string
	Text     string
	Blob     []byte
	// Meta, if not nil, is sent as the contents' _meta member: a JSON
	// object (an app's CSP and permissions, see [App]).
	Meta json.RawMessage
}

// Text returns a [*TextContent] holding s.
func Text(s string) *TextContent { return &TextContent{Text: s} }

// Image returns an [*ImageContent] holding data of the given MIME type.
func Image(data []byte, mimeType string) *ImageContent {
	return &ImageContent{Data: data, MIMEType: mimeType}
}

// Audio returns an [*AudioContent] holding data of the given MIME type.
func Audio(data []byte, mimeType string) *AudioContent {
	return &AudioContent{Data: data, MIMEType: mimeType}
}

func (c *TextContent) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"text","text":`...)
	b = jsontext.AppendString(b, c.Text)
	return appendAnnotations(b, c.Annotations)
}

func (c *ImageContent) appendJSON(b []byte) []byte {
	return appendBinary(b, "image", c.Data, c.MIMEType, c.Annotations)
}

func (c *AudioContent) appendJSON(b []byte) []byte {
	return appendBinary(b, "audio", c.Data, c.MIMEType, c.Annotations)
}

func (c *ResourceLink) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"resource_link","uri":`...)
	b = jsontext.AppendString(b, c.URI)
	b = append(b, `,"name":`...)
	b = jsontext.AppendString(b, c.Name)
	b = appendOptString(b, "title", c.Title)
	b = appendOptString(b, "description", c.Description)
	b = appendOptString(b, "mimeType", c.MIMEType)
	if c.Size > 0 {
		b = append(b, `,"size":`...)
		b = strconv.AppendInt(b, c.Size, 10)
	}
	return appendAnnotations(b, c.Annotations)
}

func (c *EmbeddedResource) appendJSON(b []byte) []byte {
	b = append(b, `{"type":"resource","resource":`...)
	b = c.Resource.appendJSON(b)
	return appendAnnotations(b, c.Annotations)
}

func (rc *ResourceContents) appendJSON(b []byte) []byte {
	b = append(b, `{"uri":`...)
	b = jsontext.AppendString(b, rc.URI)
	b = appendOptString(b, "mimeType", rc.MIMEType)
	if rc.Blob != nil {
		b = append(b, `,"blob":"`...)
		b = base64.StdEncoding.AppendEncode(b, rc.Blob)
		b = append(b, '"')
	} else {
		b = append(b, `,"text":`...)
		b = jsontext.AppendString(b, rc.Text)
	}
	if rc.Meta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, rc.Meta...)
	}
	return append(b, '}')
}

// MarshalJSON implements [json.Marshaler].
func (c *TextContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON implements [json.Marshaler].
func (c *ImageContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON implements [json.Marshaler].
func (c *AudioContent) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON implements [json.Marshaler].
func (c *ResourceLink) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON implements [json.Marshaler].
func (c *EmbeddedResource) MarshalJSON() ([]byte, error) { return c.appendJSON(nil), nil }

// MarshalJSON implements [json.Marshaler].
func (rc *ResourceContents) MarshalJSON() ([]byte, error) { return rc.appendJSON(nil), nil }

func appendBinary(b []byte, typ string, data []byte, mime string, a *Annotations) []byte {
	b = append(b, `{"type":"`...)
	b = append(b, typ...)
	b = append(b, `","data":"`...)
	b = base64.StdEncoding.AppendEncode(b, data)
	b = append(b, `","mimeType":`...)
	b = jsontext.AppendString(b, mime)
	return appendAnnotations(b, a)
}

func appendOptString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return jsontext.AppendString(b, v)
}

// appendAnnotations closes a content object, adding its annotations.
func appendAnnotations(b []byte, a *Annotations) []byte {
	if a != nil {
		if data, err := json.Marshal(a); err == nil {
			b = append(b, `,"annotations":`...)
			b = append(b, data...)
		}
	}
	return append(b, '}')
}

// wireContent is the union of every content block's members, for decoding.
type wireContent struct {
	Type        string        `json:"type"`
	Text        string        `json:"text"`
	Data        []byte        `json:"data"`
	MIMEType    string        `json:"mimeType"`
	URI         string        `json:"uri"`
	Name        string        `json:"name"`
	Title       string        `json:"title"`
	Description string        `json:"description"`
	Size        int64         `json:"size"`
	Resource    *wireResource `json:"resource"`
	Annotations *Annotations  `json:"annotations"`
}

type wireResource struct {
	URI      string  `json:"uri"`
	MIMEType string  `json:"mimeType"`
	Text     string  `json:"text"`
	Blob     *[]byte `json:"blob"`
}

// decodeContent decodes one content block sent by a client.
func decodeContent(raw json.RawMessage) (Content, error) {
	var w wireContent
	if err := json.Unmarshal(raw, &w); err != nil {
		return nil, fmt.Errorf("decoding content: %w", err)
	}
	switch w.Type {
	case "text":
		return &TextContent{Text: w.Text, Annotations: w.Annotations}, nil
	case "image":
		return &ImageContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations}, nil
	case "audio":
		return &AudioContent{Data: w.Data, MIMEType: w.MIMEType, Annotations: w.Annotations}, nil
	case "resource_link":
		return &ResourceLink{URI: w.URI, Name: w.Name, Title: w.Title, Description: w.Description,
			MIMEType: w.MIMEType, Size: w.Size, Annotations: w.Annotations}, nil
	case "resource":
		if w.Resource == nil {
			return nil, fmt.Errorf("decoding content: resource block without a resource")
		}
		rc := ResourceContents{URI: w.Resource.URI, MIMEType: w.Resource.MIMEType, Text: w.Resource.Text}
		if w.Resource.Blob != nil {
			rc.Blob = *w.Resource.Blob
		}
		return &EmbeddedResource{Resource: rc, Annotations: w.Annotations}, nil
	}
	return nil, fmt.Errorf("decoding content: unknown type %q", w.Type)
}
