package route

import (
	"cmp"
	"encoding/json"
	"strconv"
	"strings"
)

// Problem is an RFC 9457 problem document, as a route answered it.
type Problem struct {
	// Type, Title, Status, Detail and Instance are the document's members
	// of those names.
	Type     string `json:"type,omitempty"`
	Title    string `json:"title,omitempty"`
	Status   int    `json:"status,omitempty"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	// Errors are the field errors of the document's errors member, in
	// order, in whichever of the common shapes it came: huma's
	// {message, location, value}, {detail, pointer} (a JSON pointer), or
	// {field, message}, or plain strings.
	Errors []FieldError `json:"errors,omitempty"`

	// message is a plain JSON error body's message or error member, read
	// when it has neither title nor detail.
	message string
}

// FieldError is one field error of a problem document.
type FieldError struct {
	// Location says where the error is, as the service wrote it
	// ("body.items[2].sku"); a JSON pointer is written in that form
	// ("/items/2/sku" as "items[2].sku"). It is empty when the error names
	// no place. A route-bound tool's refusal names the argument instead
	// where the location is in the request its arguments built (see the
	// package documentation); an [Answer] keeps it as it is.
	Location string `json:"location,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

// UnmarshalJSON reads a field error in any of the shapes [Problem.Errors]
// lists.
func (e *FieldError) UnmarshalJSON(data []byte) error {
	var s string
	if json.Unmarshal(data, &s) == nil {
		*e = FieldError{Message: s}
		return nil
	}
	var v struct {
		Message  string `json:"message"`
		Detail   string `json:"detail"`
		Location string `json:"location"`
		Pointer  string `json:"pointer"`
		Field    string `json:"field"`
		Path     string `json:"path"`
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	e.Message = cmp.Or(v.Message, v.Detail)
	e.Location = cmp.Or(v.Location, pointerPath(v.Pointer), v.Field, v.Path)
	return nil
}

// pointerPath writes a JSON pointer ("#/items/2/sku" or "/items/2/sku")
// as a path ("items[2].sku").
func pointerPath(p string) string {
	p = strings.TrimPrefix(p, "#")
	if !strings.HasPrefix(p, "/") {
		return p
	}
	var b strings.Builder
	for tok := range strings.SplitSeq(p[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		if _, err := strconv.Atoi(tok); err == nil && b.Len() > 0 {
			b.WriteString("[" + tok + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(tok)
	}
	return b.String()
}

// decodeProblem reads a problem document from an error response: one sent
// as application/problem+json, or a JSON object sent as application/json
// that has a title, detail, message, error or errors member. It returns
// nil for anything else.
func decodeProblem(contentType string, body []byte) *Problem {
	mt := mediaType(contentType)
	if mt != "application/problem+json" && !isJSONType(mt) {
		return nil
	}
	var p struct {
		Problem
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &p) != nil {
		return nil
	}
	p.message = cmp.Or(textOf(p.Message), textOf(p.Error))
	pr := &p.Problem
	if mt != "application/problem+json" && pr.Title == "" && pr.Detail == "" && pr.message == "" && len(pr.Errors) == 0 {
		return nil
	}
	return pr
}

// textOf returns the JSON string in v, or "".
func textOf(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// mediaType returns the media type of a Content-Type, lowercase, without
// parameters.
func mediaType(contentType string) string {
	mt, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(mt))
}

// isJSONType reports whether mt is JSON: application/json or a +json type.
func isJSONType(mt string) bool {
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}
