package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// shapeMembers lists the members of a JSON-RPC envelope, one bit each.
var shapeMembers = [...]string{"jsonrpc", "id", "method", "params", "result", "error"}

// CheckShape scans a message, or a batch of them, once and without
// allocating: it fails with [ErrTooDeep] when arrays and objects nest
// deeper than maxDepth (a batch's array counts as a level), and with an
// error wrapping [ErrMember] when an envelope repeats a member or has a
// case variant of one. It does not check that data is valid JSON: the
// decoder does that after it.
func CheckShape(data []byte, maxDepth int) error {
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

// shapeScan is the state of [CheckShape].
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
