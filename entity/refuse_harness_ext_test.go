package entity_test

import (
	"encoding/json"
	"testing"
)

// refusalOf calls a tool that must refuse and returns its sentence and
// the path of its first validation error.
func refusalOf(t *testing.T, c *client, tool, args string) (msg, path string) {
	t.Helper()
	r := c.call(tool, args)
	if !r.IsError {
		t.Errorf("%s(%s) = %s; want a refusal", tool, args, r.text())
		return "", ""
	}
	var sc struct {
		ValidationErrors []struct {
			Path string `json:"path"`
		} `json:"validationErrors"`
	}
	_ = json.Unmarshal(r.Structured, &sc)
	if len(sc.ValidationErrors) > 0 {
		path = sc.ValidationErrors[0].Path
	}
	return r.text(), path
}
