package ferry

import "encoding/json"

// This file holds decoders for a modern request's _meta members that cost
// no allocation: every 2026-07-28 request carries them.

// capsJSON decodes _meta's clientCapabilities in the params pass, without a
// map: it records whether the member was there, whether it is an object,
// and which of the capabilities the server acts on it declares (by their
// top-level keys, whatever their values, as parseClientCaps reads them).
// encoding/json has checked the syntax before it calls UnmarshalJSON. A key
// written with escapes ("sa\u006dpling") is not recognised: the capability
// then counts as not declared, so the server asks nothing it may not.
type capsJSON struct {
	seen, object bool
	caps         clientCaps
}

// UnmarshalJSON implements [json.Unmarshaler].
func (c *capsJSON) UnmarshalJSON(data []byte) error {
	c.seen = true
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	c.object = true
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case '"':
			j := i + 1
			for j < len(data) && data[j] != '"' {
				if data[j] == '\\' {
					j++
				}
				j++
			}
			if depth == 1 {
				k := j + 1
				for k < len(data) && (data[k] == ' ' || data[k] == '\t' || data[k] == '\n' || data[k] == '\r') {
					k++
				}
				if k < len(data) && data[k] == ':' {
					switch string(data[i+1 : j]) {
					case "sampling":
						c.caps.sampling = true
					case "elicitation":
						c.caps.elicitation = true
					case "roots":
						c.caps.roots = true
					}
				}
			}
			i = j
		}
	}
	return nil
}

// versionJSON decodes a protocol version, interning the known ones.
type versionJSON string

// UnmarshalJSON implements [json.Unmarshaler].
func (v *versionJSON) UnmarshalJSON(data []byte) error {
	if len(data) > 2 && data[0] == '"' && data[len(data)-1] == '"' {
		for _, known := range supportedVersions {
			if string(data[1:len(data)-1]) == known {
				*v = versionJSON(known)
				return nil
			}
		}
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	*v = versionJSON(s)
	return nil
}
