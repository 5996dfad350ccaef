package ferry

import (
	"errors"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// PromptMessage is one message of a prompt or of a sampling request: who says it
// and one content block.
type PromptMessage struct {
	Role    Role
	Content Content
}

// UserMessage returns a message from the user holding the content.
func UserMessage(c Content) PromptMessage { return PromptMessage{Role: RoleUser, Content: c} }

// AssistantMessage returns a message from the assistant holding the content.
func AssistantMessage(c Content) PromptMessage { return PromptMessage{Role: RoleAssistant, Content: c} }

func (m *PromptMessage) appendJSON(b []byte) []byte {
	b = append(b, `{"role":`...)
	b = jsontext.AppendString(b, string(m.Role))
	b = append(b, `,"content":`...)
	if m.Content == nil {
		b = append(b, `{"type":"text","text":""}`...)
	} else {
		b = m.Content.appendJSON(b)
	}
	return append(b, '}')
}

// MarshalJSON implements [json.Marshaler].
func (m PromptMessage) MarshalJSON() ([]byte, error) {
	if m.Role == "" {
		return nil, errors.New("ferry: message without a role")
	}
	return m.appendJSON(nil), nil
}
