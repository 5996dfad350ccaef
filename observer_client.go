package ferry

import (
	"encoding/json"
	"strings"
)

// maxClientName bounds [RequestInfo.Client]: a name is a few words, and
// an observer may keep it.
const maxClientName = 128

// clientName returns the name of a request's clientInfo (an
// Implementation: {"name": ..., "version": ...}), cut to maxClientName
// bytes at a character's boundary, or "" when it has none. It runs only
// for an observer, so a request that no one observes costs nothing more
// than the copy of its clientInfo.
func clientName(info json.RawMessage) string {
	var impl struct {
		Name string `json:"name"`
	}
	if json.Unmarshal(info, &impl) != nil {
		return ""
	}
	name := impl.Name
	if len(name) > maxClientName {
		name = strings.ToValidUTF8(name[:maxClientName], "")
	}
	return name
}
