package route

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
)

// DoneText is the result of a route that answered 2xx with no body.
const DoneText = "Done: the request succeeded with no content."

// The bounds of what a refusal quotes of a response.
const (
	maxSentence    = 500  // bytes of the sentence
	maxFieldErrors = 20   // field errors listed
	maxLogBody     = 8192 // bytes of an unexpected answer's body in its error
)

// toolResult turns a routed response into the call's result: see the
// package documentation.
func (b *Binding) toolResult(c *call, pl *plan, rec *recorded) (*ferry.ToolResult, error) {
	method := pl.pat.method
	status := rec.code()
	if method == http.MethodHead {
		rec.body = rec.body[:0] // as net/http, which sends no body for HEAD
	}
	if status >= 200 && status < 300 {
		return success(rec, b.limit), nil
	}
	return nil, answerError(method, c.uri, c.id, status, rec.header, rec.body, pl)
}

// success is the result of a 2xx answer, cut at limit.
func success(rec *recorded, limit int64) *ferry.ToolResult {
	if len(rec.body) == 0 {
		return ferry.NewResult(ferry.Text(DoneText))
	}
	mt := mediaType(contentType(rec.header))
	if media := mediaResult(mt, rec, limit); media != nil {
		return media
	}
	text := string(rec.body)
	if rec.cut {
		text += cutNote(limit)
	}
	res := ferry.NewResult(ferry.Text(text))
	if !rec.cut && isJSONType(mt) && isObject(rec.body) && json.Valid(rec.body) {
		res.StructuredContent = json.RawMessage(text)
	}
	return res
}

// mediaResult is the result of an image or a sound (image/*, audio/*): its
// bytes as an image or audio block, or, cut at the limit, a sentence
// saying it is too large; nil for any other media type.
func mediaResult(mt string, rec *recorded, limit int64) *ferry.ToolResult {
	image, audio := strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/")
	switch {
	case !image && !audio:
		return nil
	case rec.cut:
		return ferry.NewErrorResult("The " + mt + " answer is larger than " + strconv.FormatInt(limit, 10) + " bytes, which is all this tool reads.")
	case image:
		return ferry.NewResult(ferry.Image(bytes.Clone(rec.body), mt))
	}
	return ferry.NewResult(ferry.Audio(bytes.Clone(rec.body), mt))
}

// contentType returns h's Content-Type. Handlers set it with Set, under its
// canonical name, so a lookup needs no canonicalization.
func contentType(h http.Header) string {
	if v := h["Content-Type"]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// cutNote is what a cut answer ends with.
func cutNote(limit int64) string {
	return "\n[cut: the answer is longer than " + strconv.FormatInt(limit, 10) + " bytes, which is all this tool reads]"
}

// isObject reports whether the JSON text data starts an object.
func isObject(data []byte) bool {
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// answerError is the error of an answer that is not 2xx: a refusal for
// 4xx, 429 and 503, whose sentence the model reads, and for anything else
// (3xx, 5xx) an unexpected error, which the server masks and logs whole.
// pl is the plan of the tool whose arguments made the request, whose
// field errors then name those arguments, or nil.
func answerError(method, uri, id string, status int, h http.Header, body []byte, pl *plan) error {
	code, ok := refusalCode(status)
	if !ok {
		return unexpected(method, uri, id, status, h, body)
	}
	p := decodeProblem(h.Get("Content-Type"), body)
	msg := sentence(status, h, body, p)
	if status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable {
		msg += retryIn(h.Get("Retry-After"), time.Now())
	}
	if p != nil {
		msg += fieldErrors(p.Errors, pl)
	}
	return ferry.Refuse(code, msg)
}

// refusalCode returns the refusal code of an HTTP status, and false for a
// status that is not a refusal.
func refusalCode(status int) (ferry.RefusalCode, bool) {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
		return ferry.RefusalInvalid, true
	case http.StatusUnauthorized, http.StatusForbidden:
		return ferry.RefusalForbidden, true
	case http.StatusNotFound, http.StatusGone:
		return ferry.RefusalNotFound, true
	case http.StatusConflict, http.StatusPreconditionFailed:
		return ferry.RefusalConflict, true
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return ferry.RefusalUnavailable, true
	}
	if status >= 400 && status < 500 {
		return ferry.RefusalInvalid, true
	}
	return "", false
}

// unexpected is the error of a 3xx, 5xx or otherwise unexpected answer.
func unexpected(method, uri, id string, status int, h http.Header, body []byte) error {
	what := strconv.Itoa(status) + " " + http.StatusText(status)
	if loc := h.Get("Location"); status >= 300 && status < 400 && loc != "" {
		what += " to " + strconv.Quote(bound(loc, maxSentence))
	}
	return fmt.Errorf("route: %s %s answered %s (request id %s): %s", method, uri, what, id, bound(string(body), maxLogBody))
}

// sentence is what a refusal says: the problem's detail, else its title,
// else a JSON body's message, else the first line of a plain-text body,
// else the status text; bounded, and ending with a full stop.
func sentence(status int, h http.Header, body []byte, p *Problem) string {
	var s string
	if p != nil {
		s = cmp.Or(p.Detail, p.Title, p.message)
	}
	if s == "" && strings.HasPrefix(mediaType(bodyType(h, body)), "text/plain") {
		line, _, _ := bytes.Cut(body, []byte{'\n'})
		s = string(bytes.TrimSpace(line))
	}
	if s == "" || !utf8.ValidString(s) {
		s = http.StatusText(status)
	}
	if s == "" {
		s = "The service refused with status " + strconv.Itoa(status)
	}
	s = strings.TrimSpace(bound(oneLine(s), maxSentence))
	if r, _ := utf8.DecodeLastRuneInString(s); r != '.' && r != '!' && r != '?' {
		s += "."
	}
	return s
}

// bodyType returns h's Content-Type, or the type net/http would sniff
// from body when the handler set none: what a client reading the answer
// over the wire would see (http.TimeoutHandler's message is one).
func bodyType(h http.Header, body []byte) string {
	if ct := h.Get("Content-Type"); ct != "" {
		return ct
	}
	return http.DetectContentType(body)
}

// oneLine replaces line breaks and other control characters with spaces.
func oneLine(s string) string {
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
}

// isControl reports whether r would break or restyle the line a model
// reads: C0 and C1 controls (ESC and CSI start terminal sequences) and the
// Unicode line and paragraph separators.
func isControl(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }

// bound cuts s to at most n bytes, on a rune boundary, marking the cut.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := n
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// fieldErrors lists a problem's field errors, one per line, as
// [ferry.NewInvalidArgumentsResult] lists violations, each at the argument
// its location names in the request of pl (see [plan.argumentPath]).
func fieldErrors(errs []FieldError, pl *plan) string {
	var b strings.Builder
	for i, e := range errs {
		if i == maxFieldErrors {
			fmt.Fprintf(&b, "\n- and %d more", len(errs)-i)
			break
		}
		b.WriteString("\n- ")
		if loc := pl.argumentPath(e.Location); loc != "" {
			b.WriteString(bound(oneLine(loc), 200) + ": ")
		}
		b.WriteString(bound(oneLine(cmp.Or(e.Message, "is not valid")), maxSentence))
	}
	return b.String()
}

// retryIn says when to try again, from a Retry-After header (seconds, or
// an HTTP date), or nothing when there is none that can be read.
func retryIn(v string, now time.Time) string {
	if v == "" {
		return ""
	}
	var d time.Duration
	if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
		if n < 0 || n > 1<<31 {
			return ""
		}
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	} else {
		return ""
	}
	if d <= 0 {
		return " Retry now."
	}
	secs := int64((d + time.Second - 1) / time.Second)
	return " Retry in " + strconv.FormatInt(secs, 10) + "s."
}
