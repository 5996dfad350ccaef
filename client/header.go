package client

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/ferry-mcp/ferry"
)

// This file holds the modern era's routing headers: Mcp-Name, and the
// Mcp-Param-* headers that mirror the tool arguments whose input schema
// property carries "x-mcp-header".

// paramHeader is a tool argument mirrored into a header.
type paramHeader struct {
	arg, header string
}

// maxHeaderTools bounds the tools whose headers the client remembers.
const maxHeaderTools = 10000

// learnHeaders remembers the x-mcp-header arguments of tools.
func (c *Client) learnHeaders(tools []Tool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.headers == nil {
		c.headers = map[string][]paramHeader{}
	}
	for _, t := range tools {
		if len(c.headers) >= maxHeaderTools {
			return
		}
		var s struct {
			Properties map[string]struct {
				Header *string `json:"x-mcp-header"`
			} `json:"properties"`
		}
		_ = json.Unmarshal(t.InputSchema, &s)
		var hs []paramHeader
		for name, p := range s.Properties {
			if p.Header != nil && *p.Header != "" {
				hs = append(hs, paramHeader{arg: name, header: *p.Header})
			}
		}
		c.headers[t.Name] = hs
	}
}

// headersUnknown reports whether err refuses a call for a header mismatch
// of a tool whose headers the client has not learnt.
func (c *Client) headersUnknown(tool string, err error) bool {
	var re *Error
	if !errors.As(err, &re) || re.Code != ferry.CodeHeaderMismatch || !strings.Contains(re.Message, "Mcp-Param-") {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, known := c.headers[tool]
	return !known
}

// paramHeaderValues returns the Mcp-Param-* headers of a call of tool.
func (c *Client) paramHeaderValues(tool string, args json.RawMessage) http.Header {
	c.mu.Lock()
	hs := c.headers[tool]
	c.mu.Unlock()
	if len(hs) == 0 || len(args) == 0 {
		return nil
	}
	var a map[string]json.RawMessage
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	h := http.Header{}
	for _, ph := range hs {
		v, ok := a[ph.arg]
		if !ok || string(v) == "null" {
			continue
		}
		var s string
		if v[0] == '"' {
			if json.Unmarshal(v, &s) != nil {
				continue
			}
		} else {
			s = string(v) // numbers and booleans as JSON writes them
		}
		h.Set("Mcp-Param-"+ph.header, headerValue(s))
	}
	return h
}

// headerValue returns s as a header value: as it is when it is printable
// ASCII without edge spaces, else in the =?base64?...?= form.
func headerValue(s string) string {
	plain := s == "" || s[0] != ' ' && s[len(s)-1] != ' ' && s[0] != '\t' && s[len(s)-1] != '\t'
	for i := 0; plain && i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e {
			plain = false
		}
	}
	if plain && !strings.HasPrefix(s, "=?base64?") {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}
