package jsonrpc

import (
	"errors"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// ErrTooDeep reports a message that nests arrays and objects deeper than
// allowed.
var ErrTooDeep = errors.New("jsonrpc: the message nests too deeply")

// ErrMember reports an envelope with a member twice, or a member whose
// name differs from a JSON-RPC member's only by case ("Method"), which
// encoding/json would take for it.
var ErrMember = errors.New("jsonrpc: invalid envelope member")

// ErrEmptyBatch reports a batch with no message in it.
var ErrEmptyBatch = errors.New("jsonrpc: empty batch")

// Params takes the members of a message's params object while the
// message is decoded, so that a caller reads them without a second pass
// over the bytes.
type Params interface {
	// Member is called once for each member, in order, with its name
	// (escapes decoded) and its value: checked JSON with no space around
	// it. Both alias the decoded input: a caller that keeps them past
	// the input's lifetime copies them. An error makes the params
	// invalid: decoding goes on, Member is not called again for the
	// message, and the error is the message's [Result.ParamsErr].
	Member(name, value []byte) error
}

// Result is what decoding one message tells besides its members.
type Result struct {
	// Kind is what the message is; KindInvalid when Err is set.
	Kind Kind
	// Err reports a message that is JSON but not a valid JSON-RPC
	// message: the caller answers -32600, echoing the id when
	// [Message.ValidID] says it can.
	Err error
	// ParamsErr is the first error [Params.Member] returned: the caller
	// answers invalid params.
	ParamsErr error
}

// Decoder decodes JSON-RPC messages, and batches of them, in a single
// pass over their bytes and without reflection. It checks that the input
// is JSON exactly as json.Valid does, that arrays and objects nest at
// most MaxDepth levels deep, and that no envelope member is sent twice
// or as a case variant ("Method"), which an intermediary reading the
// input with encoding/json would take for the member; then the JSON-RPC
// rules [Message.Classify] states. Decoding allocates nothing for the
// envelope of a message whose method is in Methods.
//
// A Decoder is safe for concurrent use once set up.
type Decoder struct {
	// MaxDepth is how many levels of arrays and objects a message may
	// nest, a batch's array counting as one. Past it the input fails
	// with [ErrTooDeep]; past JSON's own bound (10,000 levels) it is not
	// JSON ([ErrParse]), whatever MaxDepth says.
	MaxDepth int
	// Methods are method names decoded without allocating: a message
	// naming one of them gets the string held here.
	Methods []string
}

// Decode decodes data, one message (see [IsBatch] for a batch), into m,
// handing the members of its params to p (nil keeps them only as
// [Message.Params]).
//
// err wraps [ErrParse], [ErrTooDeep] or [ErrMember]: the first such
// problem in the input, after which the message is not decoded further.
// Otherwise the Result tells the message's kind and anything else wrong
// with it.
//
// The message's raw members (ID, Params, Result) alias data; Method and
// JSONRPC do not. A caller that keeps them past data's lifetime (a pooled
// buffer, say) copies them first.
func (dc *Decoder) Decode(data []byte, m *Message, p Params) (Result, error) {
	d := dc.start(data)
	i, r, err := d.message(jsontext.SkipSpace(data, 0), 0, m, p)
	if err == nil && jsontext.SkipSpace(data, i) != len(data) {
		err = d.syntaxError(i)
	}
	return r, err
}

// Batch takes the elements of a batch as [Decoder.DecodeBatch] reads
// them.
type Batch interface {
	// Next returns where the next element goes: its message and who
	// takes its params members (nil keeps them only as [Message.Params]).
	Next() (*Message, Params)
	// Done takes the result of the element Next was last called for.
	Done(Result)
}

// DecodeBatch decodes data, a batch (see [IsBatch]), as [Decoder.Decode]
// decodes a message, in a single pass, element after element into b. A
// batch with no element fails with [ErrEmptyBatch]. Nothing should be
// served before DecodeBatch returns: a problem in any element that err
// reports refuses the whole batch. DecodeBatch keeps nothing per element:
// how much memory a batch costs is up to b.
func (dc *Decoder) DecodeBatch(data []byte, b Batch) error {
	d := dc.start(data)
	i := jsontext.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return d.syntaxError(i)
	}
	n := 0
	i, more, err := d.open(i, 1, ']')
	for more && err == nil {
		m, p := b.Next()
		var r Result
		if i, r, err = d.message(i, 1, m, p); err == nil {
			b.Done(r)
			n++
			i, more, err = d.close(i, ']')
		}
	}
	if err == nil && jsontext.SkipSpace(data, i) != len(data) {
		err = d.syntaxError(i)
	}
	if err == nil && n == 0 {
		err = ErrEmptyBatch
	}
	return err
}

// defaultDecoder decodes what [Decode] is given.
var defaultDecoder = Decoder{MaxDepth: jsontext.MaxDepth}

// Decode decodes one message with no bound on its nesting but JSON's own
// and its params kept raw: for messages that do not come straight from a
// client (a reply relayed between replicas). The message aliases data.
func Decode(data []byte) (*Message, Kind, error) {
	m := new(Message)
	r, err := defaultDecoder.Decode(data, m, nil)
	if err != nil {
		return nil, KindInvalid, err
	}
	return m, r.Kind, r.Err
}
