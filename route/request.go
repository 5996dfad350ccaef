package route

import (
	"bytes"
	"net/url"

	"github.com/ferry-mcp/ferry/schema"
)

// maxFields is how many placed arguments a call records without
// allocating.
const maxFields = 4

// call is one routed request's state, allocated once per request: what
// [FromAgent] reads from the request's context, and the parts of the
// request that would otherwise be allocated one by one.
type call struct {
	tool string
	id   string // X-Request-Id
	u    url.URL
	uri  string // RequestURI
	body bodyReader
	w    responseWriter
	vals [10]string // backing for header values
	nval int
	// spans are the values of the plan's fields, by index.
	spans [maxFields][]byte
}

// bodyReader is a routed request's body.
type bodyReader struct{ bytes.Reader }

// Close implements io.Closer.
func (*bodyReader) Close() error { return nil }

// build fills c.u and c.uri from pl and args and returns the request's
// body (nil for none) and the headers fields fill; errs lists the
// arguments that cannot fill the route. err is set for arguments that are
// not a JSON object.
func (pl *plan) build(c *call, args []byte) (body []byte, hdr []headerValue, errs schema.Errors, err error) {
	if pl.rest == inBody && len(pl.fields) == 0 {
		c.u.Path, c.uri = pl.pat.path, pl.pat.path
		return bodyOf(args), nil, nil, nil
	}
	var spans [][]byte
	if len(pl.fields) <= maxFields {
		spans = c.spans[:len(pl.fields)]
	} else {
		spans = make([][]byte, len(pl.fields))
	}
	var scratch [256]byte
	q, body, errs, err := pl.split(args, spans, scratch[:0])
	if err != nil {
		return nil, nil, nil, err
	}
	q, hdr, whole, errs := pl.placeFields(q, spans, errs)
	if errs = append(errs, pl.fillURL(c, spans, q)...); len(errs) > 0 {
		return nil, nil, errs, nil
	}
	if whole != nil {
		body = whole
	}
	return body, hdr, nil, nil
}

// split sorts the members of args: the values of pl's fields into spans,
// by index, and the others into the query q or a new JSON body (nil when
// they go to the query).
func (pl *plan) split(args []byte, spans [][]byte, q []byte) (_, body []byte, errs schema.Errors, err error) {
	if pl.rest == inBody {
		body = make([]byte, 1, len(args)+2)
		body[0] = '{'
	}
	m, err := newMembers(args)
	for err == nil {
		var key, val []byte
		var ok bool
		if key, val, ok, err = m.next(); err != nil || !ok {
			break
		}
		switch i := pl.field(key); {
		case i >= 0:
			spans[i] = val
		case pl.rest == inQuery:
			if name, ok := unquote(key); ok {
				q, errs = appendQuery(q, name, val, errs)
			}
		default:
			if len(body) > 1 {
				body = append(body, ',')
			}
			body = append(append(append(body, key...), ':'), val...)
		}
	}
	if body != nil {
		body = append(body, '}')
	}
	return q, body, errs, err
}

// bodyOf returns the arguments as a JSON body: an empty object when there
// are none.
func bodyOf(args []byte) []byte {
	if len(bytes.TrimSpace(args)) == 0 || string(args) == "null" {
		return emptyObject
	}
	return args
}

var emptyObject = []byte("{}")

// field returns the index in pl.fields of the argument whose key, as
// written, is key, or -1.
func (pl *plan) field(key []byte) int {
	name, ok := unquote(key)
	if !ok {
		return -1
	}
	for i := range pl.fields {
		if pl.fields[i].name == string(name) {
			return i
		}
	}
	return -1
}

// placeFields adds the query and header fields to q and the headers, and
// returns the value of the argument that is the whole body, if any (nil
// when it is absent or null: the request then has no body).
func (pl *plan) placeFields(q []byte, spans [][]byte, errs schema.Errors) ([]byte, []headerValue, []byte, schema.Errors) {
	var hdr []headerValue
	var whole []byte
	for i, f := range pl.fields {
		v := spans[i]
		switch f.place {
		case inWholeBody:
			if v != nil && string(v) != "null" {
				whole = v
			}
		case inQuery:
			n := len(errs)
			q, errs = appendQuery(q, f.key, v, errs)
			for _, e := range errs[n:] {
				e.Path = f.name // the argument, not the parameter it fills
			}
		case inHeader:
			if v == nil || string(v) == "null" {
				continue
			}
			s, err := headerText(v)
			if err != nil {
				errs = append(errs, &schema.Error{Path: f.name, Message: err.Error()})
				continue
			}
			hdr = append(hdr, headerValue{key: f.header, value: s})
		}
	}
	return q, hdr, whole, errs
}

// fillURL writes the path, with the wildcards' values, and the query q
// into u. The path travels escaped (RawPath) when escaping changed it.
func (pl *plan) fillURL(c *call, spans [][]byte, q []byte) schema.Errors {
	var escBuf, rawBuf [256]byte
	var errs schema.Errors
	esc, raw := escBuf[:0], rawBuf[:0]
	differs := false
	k := 0 // the index of the next wildcard's field
	for _, s := range pl.pat.segs {
		esc, raw = append(esc, '/'), append(raw, '/')
		if s.wild == "" {
			esc, raw = append(esc, s.lit...), append(raw, s.lit...)
			continue
		}
		var msg string
		var changed bool
		esc, raw, changed, msg = appendWildcard(esc, raw, s.multi, spans[k])
		k++
		if msg != "" {
			errs = append(errs, &schema.Error{Path: s.wild, Message: msg})
		}
		differs = differs || changed
	}
	if pl.pat.slash || len(pl.pat.segs) == 0 {
		esc, raw = append(esc, '/'), append(raw, '/')
	}
	if len(errs) > 0 {
		return errs
	}
	pathLen := len(esc)
	if len(q) > 0 {
		esc = append(append(esc, '?'), q...)
	}
	uriLen := len(esc)
	if differs {
		esc = append(esc, raw...)
	}
	s := string(esc)
	c.u.Path, c.uri = s[:pathLen], s[:uriLen]
	if len(q) > 0 {
		c.u.RawQuery = s[pathLen+1 : uriLen]
	}
	if differs {
		c.u.Path, c.u.RawPath = s[uriLen:], s[:pathLen]
	}
	return nil
}
