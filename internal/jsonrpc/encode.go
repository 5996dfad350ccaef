package jsonrpc

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// AppendResultHead appends the start of a result response, up to and
// including `"result":`. The caller appends the result value and then '}'.
func AppendResultHead(b []byte, id json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	return append(b, `,"result":`...)
}

// AppendError appends a complete error response. A nil or invalid id is
// written as null, as JSON-RPC prescribes for unreadable ids.
func AppendError(b []byte, id json.RawMessage, code int64, msg string, data json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	if id == nil || checkID(id) != nil {
		b = append(b, "null"...)
	} else {
		b = append(b, id...)
	}
	b = append(b, `,"error":{"code":`...)
	b = strconv.AppendInt(b, code, 10)
	b = append(b, `,"message":`...)
	b = AppendString(b, msg)
	if len(data) > 0 {
		b = append(b, `,"data":`...)
		b = append(b, data...)
	}
	return append(b, "}}"...)
}

// AppendRequest appends a request (or, with a nil id, a notification) whose
// params are already encoded.
func AppendRequest(b []byte, id json.RawMessage, method string, params json.RawMessage) []byte {
	b = append(b, `{"jsonrpc":"2.0",`...)
	if id != nil {
		b = append(b, `"id":`...)
		b = append(b, id...)
		b = append(b, ',')
	}
	b = append(b, `"method":`...)
	b = AppendString(b, method)
	if len(params) > 0 {
		b = append(b, `,"params":`...)
		b = append(b, params...)
	}
	return append(b, '}')
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD and
// U+2028/U+2029 are escaped, as encoding/json does.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
