package ferry

import (
	"errors"

	"github.com/ferry-mcp/ferry/internal/jsonrpc"
)

// Message is one message of a prompt or of a sampling request: who says it
// and one content block.
type Message struct {
	Role    Role
	Content Content
}

// UserMessage returns a message from the user holding the content.
func UserMessage(c Content) Message { return Message{Role: RoleUser, Content: c} }

// AssistantMessage returns a message from the assistant holding the content.
func AssistantMessage(c Content) Message { return Message{Role: RoleAssistant, Content: c} }

func (m *Message) appendJSON(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsonrpc.AppendString(b, string(m.Role))
	b = append(b, `,"content":`...)
	if m.Content == nil {
		b = append(b, `{"type":"text","text":""}`...)
	} else {
		b = m.Content.appendJSON(b)
	}
	return append(b, '}')
}

// MarshalJSON implements [json.Marshaler].
func (m Message) MarshalJSON() ([]byte, error) {
	if m.Role == "" {
		return nil, errors.New("ferry: message without a role")
	}
	return m.appendJSON(nil), nil
}
