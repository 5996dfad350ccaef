package client

import "encoding/json"

// The methods below keep each item's JSON in Raw.

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (s *ServerInfo) UnmarshalJSON(data []byte) error {
	type plain ServerInfo
	if err := json.Unmarshal(data, (*plain)(s)); err != nil {
		return err
	}
	s.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (s ServerInfo) MarshalJSON() ([]byte, error) {
	if len(s.Raw) > 0 {
		return s.Raw, nil
	}
	type plain ServerInfo
	return json.Marshal(plain(s))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (t *Tool) UnmarshalJSON(data []byte) error {
	type plain Tool
	if err := json.Unmarshal(data, (*plain)(t)); err != nil {
		return err
	}
	t.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (t Tool) MarshalJSON() ([]byte, error) {
	if len(t.Raw) > 0 {
		return t.Raw, nil
	}
	type plain Tool
	return json.Marshal(plain(t))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (t *ToolResult) UnmarshalJSON(data []byte) error {
	type plain ToolResult
	if err := json.Unmarshal(data, (*plain)(t)); err != nil {
		return err
	}
	t.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (t ToolResult) MarshalJSON() ([]byte, error) {
	if len(t.Raw) > 0 {
		return t.Raw, nil
	}
	type plain ToolResult
	return json.Marshal(plain(t))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (c *Content) UnmarshalJSON(data []byte) error {
	type plain Content
	if err := json.Unmarshal(data, (*plain)(c)); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (c Content) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	type plain Content
	return json.Marshal(plain(c))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (p *Prompt) UnmarshalJSON(data []byte) error {
	type plain Prompt
	if err := json.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	p.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (p Prompt) MarshalJSON() ([]byte, error) {
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	type plain Prompt
	return json.Marshal(plain(p))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (p *PromptResult) UnmarshalJSON(data []byte) error {
	type plain PromptResult
	if err := json.Unmarshal(data, (*plain)(p)); err != nil {
		return err
	}
	p.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (p PromptResult) MarshalJSON() ([]byte, error) {
	if len(p.Raw) > 0 {
		return p.Raw, nil
	}
	type plain PromptResult
	return json.Marshal(plain(p))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (r *Resource) UnmarshalJSON(data []byte) error {
	type plain Resource
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (r Resource) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain Resource
	return json.Marshal(plain(r))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (r *ResourceTemplate) UnmarshalJSON(data []byte) error {
	type plain ResourceTemplate
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (r ResourceTemplate) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain ResourceTemplate
	return json.Marshal(plain(r))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (r *ReadResult) UnmarshalJSON(data []byte) error {
	type plain ReadResult
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (r ReadResult) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain ReadResult
	return json.Marshal(plain(r))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (r *ResourceContents) UnmarshalJSON(data []byte) error {
	type plain ResourceContents
	if err := json.Unmarshal(data, (*plain)(r)); err != nil {
		return err
	}
	r.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (r ResourceContents) MarshalJSON() ([]byte, error) {
	if len(r.Raw) > 0 {
		return r.Raw, nil
	}
	type plain ResourceContents
	return json.Marshal(plain(r))
}

// UnmarshalJSON implements [json.Unmarshaler], keeping data in Raw.
func (c *CompleteResult) UnmarshalJSON(data []byte) error {
	type plain CompleteResult
	if err := json.Unmarshal(data, (*plain)(c)); err != nil {
		return err
	}
	c.Raw = append(json.RawMessage(nil), data...)
	return nil
}

// MarshalJSON implements [json.Marshaler]: Raw when set.
func (c CompleteResult) MarshalJSON() ([]byte, error) {
	if len(c.Raw) > 0 {
		return c.Raw, nil
	}
	type plain CompleteResult
	return json.Marshal(plain(c))
}
