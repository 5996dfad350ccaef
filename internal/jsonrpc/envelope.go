package jsonrpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// member is a member of the JSON-RPC envelope.
type member uint8

// The envelope's members; memberNone is any other.
const (
	memberNone member = iota
	memberJSONRPC
	memberID
	memberMethod
	memberParams
	memberResult
	memberError
)

var memberNames = [...]string{"", "jsonrpc", "id", "method", "params", "result", "error"}

// envelopeMember returns the member called name.
func envelopeMember(name []byte) member {
	switch string(name) {
	case "jsonrpc":
		return memberJSONRPC
	case "id":
		return memberID
	case "method":
		return memberMethod
	case "params":
		return memberParams
	case "result":
		return memberResult
	case "error":
		return memberError
	}
	return memberNone
}

// envelope is the state of one envelope's decode.
type envelope struct {
	m    *Message
	p    Params
	seen uint8 // the members read, one bit each
	err  error // the first member of the wrong type
	perr error // the first error p returned
}

// member returns the member called name, refusing one read before and a
// case variant of one ("Method", or "paramſ", which folds to "params").
func (e *envelope) member(name []byte) (member, error) {
	mem := envelopeMember(name)
	if mem == memberNone {
		return memberNone, checkVariant(name)
	}
	if e.seen&(1<<mem) != 0 {
		return memberNone, fmt.Errorf("%w: %q is sent twice", ErrMember, memberNames[mem])
	}
	e.seen |= 1 << mem
	return mem, nil
}

// checkVariant refuses a name that differs from a member's only by case.
func checkVariant(name []byte) error {
	if len(name) < 2 || len(name) > 8 {
		// No member's name, nor a case variant of one ("ſ" is two bytes
		// and folds to "s"), is this short or long.
		return nil
	}
	for _, m := range memberNames[1:] {
		if bytes.EqualFold(name, []byte(m)) {
			return fmt.Errorf("%w: %s is not a member; the member is %q", ErrMember, strconv.Quote(string(name)), m)
		}
	}
	return nil
}

// value decodes the value at d.data[i] of the member mem of an envelope
// at depth, and returns the index past it.
func (e *envelope) value(d *decoder, mem member, i, depth int) (int, error) {
	if mem == memberParams && i < len(d.data) && d.data[i] == '{' {
		end, err := d.params(i, depth+1, e)
		if err == nil {
			e.m.Params = d.data[i:end]
		}
		return end, err
	}
	end, err := d.value(i, depth)
	if err == nil && mem != memberNone {
		e.set(d, mem, d.data[i:end])
	}
	return end, err
}

// set sets the member mem to v, recording a value of the wrong type.
func (e *envelope) set(d *decoder, mem member, v []byte) {
	t := jsontext.TypeOf(v)
	switch {
	case mem == memberID:
		e.m.ID = v
	case mem == memberResult:
		e.m.Result = v
	case t == jsontext.Null:
		// As encoding/json reads it: the member is left unset.
	case mem == memberJSONRPC && t == jsontext.String:
		e.m.JSONRPC = d.version(v)
	case mem == memberMethod && t == jsontext.String:
		e.m.Method = d.method(v)
	case mem == memberParams:
		e.fail(errParamsNotObject)
	case mem == memberError && t == jsontext.Object:
		e.m.Error, e.err = decodeWireError(v, e.err)
	default:
		e.fail(fmt.Errorf("jsonrpc: member %q must not be a JSON %s", memberNames[mem], t))
	}
}

func (e *envelope) fail(err error) {
	if e.err == nil {
		e.err = err
	}
}

// decodeWireError decodes the error member v of a response (an object),
// keeping first, the first error of the envelope, if any.
func decodeWireError(v []byte, first error) (*WireError, error) {
	w := new(WireError)
	err := json.Unmarshal(v, w)
	if first != nil {
		return w, first
	}
	if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
		return w, fmt.Errorf("jsonrpc: member %q must not be a JSON %s", "error."+te.Field, te.Value)
	}
	return w, err
}

// result tells the envelope's kind, or why it is not a valid message.
func (e *envelope) result() Result {
	if e.err != nil {
		return Result{Kind: KindInvalid, Err: e.err, ParamsErr: e.perr}
	}
	k, err := e.m.Classify()
	return Result{Kind: k, Err: err, ParamsErr: e.perr}
}

// The errors of messages of the wrong type: made once, as a batch may
// hold any number of them.
var (
	errNotObject       = errors.New("jsonrpc: a message must be a JSON object")
	errParamsNotObject = errors.New("jsonrpc: params must be an object")
)

// notObject is the result of a message that is JSON but no object: null
// reads as an empty envelope, as encoding/json reads it.
func notObject(v []byte, m *Message) Result {
	if jsontext.TypeOf(v) == jsontext.Null {
		k, err := m.Classify()
		return Result{Kind: k, Err: err}
	}
	return Result{Kind: KindInvalid, Err: errNotObject}
}

// version decodes the jsonrpc member's string v.
func (d *decoder) version(v []byte) string {
	if string(v) == `"2.0"` {
		return "2.0"
	}
	return jsontext.Unquote(v)
}

// method decodes the method member's string v, without allocating for a
// method of the Decoder's Methods.
func (d *decoder) method(v []byte) string { return jsontext.UnquoteKnown(v, d.methods) }
