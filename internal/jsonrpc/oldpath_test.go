package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// This file keeps, as the oracle of the decoder's differential fuzzers,
// how Ferry decoded messages before [Decoder]: checkShape scanned the
// nesting and the envelope's members, then encoding/json decoded the
// message (decodeWith) or split a batch (splitBatch).

// shapeMembers lists the members of a JSON-RPC envelope, one bit each.
var shapeMembers = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// checkShape scans a message, or a batch of them, once and without
// allocating: it fails with [ErrTooDeep] when arrays and objects nest
// deeper than maxDepth (a batch's array counts as a level), and with an
// error wrapping [ErrMember] when an envelope repeats a member or has a
// case variant of one. It does not check that data is valid JSON: the
// decoder does that after it.
func checkShape(data []byte, maxDepth int) error {
	var sc shapeScan
	sc.maxDepth = maxDepth
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch c {
		case '"':
			end := stringEnd(data, i+1)
			if sc.keyAt() {
				if err := sc.member(data[i+1 : end]); err != nil {
					return err
				}
			}
			i = end
		case '{', '[':
			if err := sc.open(c); err != nil {
				return err
			}
		case '}', ']':
			sc.depth--
		case ',':
			if sc.depth == sc.envDepth && sc.inEnvelope {
				sc.wantKey = true
			}
		}
	}
	return nil
}

// shapeScan is the state of [checkShape].
type shapeScan struct {
	maxDepth   int
	depth      int
	envDepth   int    // the depth of envelope objects: 1, or 2 in a batch
	inEnvelope bool   // the container at envDepth is an object
	wantKey    bool   // the next string at envDepth is a member name
	seen       uint32 // envelope members seen in the current envelope
}

func (sc *shapeScan) open(c byte) error {
	sc.depth++
	if sc.depth > sc.maxDepth {
		return fmt.Errorf("%w: more than %d levels of arrays and objects", ErrTooDeep, sc.maxDepth)
	}
	switch {
	case sc.depth == 1 && c == '[':
		sc.envDepth = 2 // a batch: its elements are envelopes
	case sc.depth == 1:
		sc.envDepth = 1
	}
	if sc.depth == sc.envDepth {
		sc.inEnvelope = c == '{'
		sc.wantKey = sc.inEnvelope
		sc.seen = 0
	}
	return nil
}

// keyAt reports whether the string starting now is an envelope's member
// name, and consumes the expectation.
func (sc *shapeScan) keyAt() bool {
	if sc.depth != sc.envDepth || !sc.inEnvelope || !sc.wantKey {
		return false
	}
	sc.wantKey = false
	return true
}

// member checks one member name of an envelope, as sent (escapes
// included).
func (sc *shapeScan) member(raw []byte) error {
	name := raw
	switch {
	case bytes.IndexByte(raw, '\\') >= 0:
		var s string
		if json.Unmarshal(append(append([]byte{'"'}, raw...), '"'), &s) != nil {
			return nil // not JSON: the decoder says so
		}
		name = []byte(s)
	case len(raw) < 2 || len(raw) > 8:
		// No member's name, nor a case variant of one ("ſ" is two bytes
		// and folds to "s"), is this long.
		return nil
	}
	for i, m := range shapeMembers {
		if string(name) == m {
			if sc.seen&(1<<i) != 0 {
				return fmt.Errorf("%w: %q is sent twice", ErrMember, m)
			}
			sc.seen |= 1 << i
			return nil
		}
	}
	for _, m := range shapeMembers {
		if bytes.EqualFold(name, []byte(m)) {
			return fmt.Errorf("%w: %s is not a member; the member is %q", ErrMember, strconv.Quote(string(name)), m)
		}
	}
	return nil
}

// stringEnd returns the index of the quote that closes the string whose
// contents start at i, or len(data) when it is not closed.
func stringEnd(data []byte, i int) int {
	for i < len(data) {
		q := bytes.IndexByte(data[i:], '"')
		if q < 0 {
			return len(data)
		}
		q += i
		n := 0 // the backslashes before the quote: an odd number escapes it
		for j := q - 1; j >= i && data[j] == '\\'; j-- {
			n++
		}
		if n%2 == 0 {
			return q
		}
		i = q + 1
	}
	return len(data)
}

// splitBatch splits a batch body into its elements. An empty batch is an error.
func splitBatch(data []byte) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrParse, err)
	}
	if len(items) == 0 {
		return nil, errors.New("jsonrpc: empty batch")
	}
	return items, nil
}

// decodeWith is [Decode] that also decodes the params member into params (a
// pointer to a struct) in the same pass, and leaves Message.Params nil.
// A params member whose fields have the wrong types is reported as perr,
// so that the caller can answer invalid params; err reports what Decode
// would (ErrParse, or an invalid message with Kind KindInvalid).
func decodeWith(data []byte, params any) (m *Message, k Kind, err, perr error) {
	var e struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id,omitempty"`
		Method  string          `json:"method,omitempty"`
		Params  any             `json:"params,omitempty"`
		Result  json.RawMessage `json:"result,omitempty"`
		Error   *WireError      `json:"error,omitempty"`
	}
	e.Params = params
	if uerr := json.Unmarshal(data, &e); uerr != nil {
		var te *json.UnmarshalTypeError
		switch {
		case !errors.As(uerr, &te):
			return nil, KindInvalid, fmt.Errorf("%w: %w", ErrParse, uerr), nil
		case strings.HasPrefix(te.Field, "params."):
			perr = uerr
		default:
			m = &Message{JSONRPC: e.JSONRPC, ID: e.ID, Method: e.Method}
			switch te.Field {
			case "":
				return m, KindInvalid, errors.New("jsonrpc: a message must be a JSON object"), nil
			case "params":
				return m, KindInvalid, errors.New("jsonrpc: params must be an object"), nil
			}
			return m, KindInvalid, fmt.Errorf("jsonrpc: member %q must not be a JSON %s", te.Field, te.Value), nil
		}
	}
	m = &Message{JSONRPC: e.JSONRPC, ID: e.ID, Method: e.Method, Result: e.Result, Error: e.Error}
	k, err = m.Classify()
	return m, k, err, perr
}
