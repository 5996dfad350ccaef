package ferry

import (
	"encoding/json"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// maxClientName bounds [RequestInfo.Client]: a name is a few words, and
// an observer may keep it.
const maxClientName = 128

// clientName returns the name of a request's clientInfo (an
// Implementation: {"name": ..., "version": ...}; checked JSON, as the
// decoder leaves it), cut to maxClientName bytes at a character's
// boundary, or "" when it has none. It runs only for an observer, and
// allocates only the name, so a request that no one observes costs
// nothing more than the copy of its clientInfo.
func clientName(info json.RawMessage) string {
	if jsontext.TypeOf(info) != jsontext.Object {
		return ""
	}
	var name string
	jsontext.EachMember(info, func(key, value []byte) bool {
		if string(key) != `"name"` {
			return true
		}
		if jsontext.TypeOf(value) == jsontext.String {
			name = jsontext.Unquote(value)
		}
		return false
	})
	if len(name) > maxClientName {
		name = strings.ToValidUTF8(name[:maxClientName], "")
	}
	return name
}
