package ferry

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file holds the result budget: the bound on the size of a tool's
// result ([Limits.MaxResultBytes], [Tool.MaxResultBytes], and the
// client's own, [MetaMaxResultBytes]). A result is encoded as it always
// is; only one over its budget is cut ([Server.cutResult]) and encoded
// again, so a call within it pays one comparison.

// MetaMaxResultBytes is the _meta member of a tools/call in which a
// client states its own bound on the result, in bytes (an integer of at
// least [MinClientResultBytes]): the call's result is held to the smaller
// of it and the tool's (see [Limits.MaxResultBytes]). It binds tools that
// opted out of the server's bound too.
const MetaMaxResultBytes = "io.github.ferry-mcp/maxResultBytes"

// MinClientResultBytes is the smallest bound a client may state in
// [MetaMaxResultBytes]: below it even the notice that says a result was
// cut does not fit, and every result would be that notice alone.
const MinClientResultBytes = 1024

// decodeMaxResult decodes the client's bound: an integer of at least
// [MinClientResultBytes], or null for none.
func decodeMaxResult(dst *int64, value []byte) error {
	if jsontext.TypeOf(value) == jsontext.Null {
		return nil
	}
	n, err := strconv.ParseInt(string(value), 10, 64)
	if err != nil || n < MinClientResultBytes {
		return errors.New(memberPath("_meta", MetaMaxResultBytes) + " must be a whole number of bytes, at least " + strconv.Itoa(MinClientResultBytes))
	}
	*dst = n
	return nil
}

// toolBudget resolves a tool's result budget: its own when set, the
// server's otherwise; zero means none.
func (s *Server) toolBudget(own int) int {
	switch {
	case own > 0:
		return own
	case own < 0:
		return 0
	}
	switch n := s.opts.Limits.MaxResultBytes; {
	case n > 0:
		return n
	case n < 0:
		return 0
	}
	return DefaultMaxResultBytes
}

// resultBudget is the bound on r's result: its tool's, or the client's
// when that is smaller; zero for none.
func resultBudget(r *request) (limit int, byClient bool) {
	limit = r.target.tool.info.MaxResultBytes
	if c := r.params.Meta.MaxResultBytes; c > 0 && (limit == 0 || c < int64(limit)) {
		return int(c), true
	}
	return limit, false
}

// resultCut is what cutting a result did, for the call log and the
// notice.
type resultCut struct {
	limit, size   int  // the budget and the size of the result as returned
	byClient      bool // the client's bound was the smaller
	items, of     int  // a list's items kept, of how many (of is 0 for no list cut)
	chars, ofText int  // the text's characters kept, of how many (ofText is 0 for no text cut)
	droppedSC     bool // the structured content was left out
	droppedBlocks int  // content blocks other than text left out
}

// logAttr is the call log's record of the cut.
func (c *resultCut) logAttr() slog.Attr {
	attrs := []any{slog.Int("limit", c.limit), slog.Int("bytes", c.size), slog.Bool("client", c.byClient)}
	if c.of > 0 {
		attrs = append(attrs, slog.Int("items", c.items), slog.Int("of", c.of))
	}
	if c.ofText > 0 {
		attrs = append(attrs, slog.Int("chars", c.chars), slog.Int("ofChars", c.ofText))
	}
	if c.droppedSC {
		attrs = append(attrs, slog.Bool("structuredDropped", true))
	}
	if c.droppedBlocks > 0 {
		attrs = append(attrs, slog.Int("blocksDropped", c.droppedBlocks))
	}
	return slog.Group("cut", attrs...)
}

// noticeBytes is room kept for the notice the model reads.
const noticeBytes = 400

// cutResult returns res held to limit bytes of encoded members, and what
// it cut. It never changes res itself (a handler may return a shared
// result). In order: a list-shaped structured result loses whole items
// from its end, with hasMore set (see [listShape]); otherwise the
// structured content is left out (and a tool with an output schema
// answers with isError, so that a client checking the schema does not
// refuse the answer); then content blocks other than text that do not
// fit are left out, and the text is cut at a character, with a notice
// saying what was cut and how to ask for less.
func (s *Server) cutResult(res *ToolResult, limit, size int, byClient, hasSchema bool) (*ToolResult, *resultCut) {
	c := &resultCut{limit: limit, size: size, byClient: byClient}
	out := &ToolResult{Content: res.Content, IsError: res.IsError, Meta: res.Meta, StructuredContent: res.StructuredContent}
	if out.StructuredContent != nil {
		if cut := s.cutList(out, limit, c); cut != nil {
			return cut, c
		}
		out.StructuredContent, c.droppedSC = nil, true
		if hasSchema {
			out.IsError = true
		}
	} else if cut := cutTextList(out, limit, c); cut != nil {
		return cut, c
	}
	return cutContent(out, limit, c), c
}

// cutTextList cuts a result whose only block is JSON text holding a list
// (an array, or a list-shaped object, as a route's answer may be) at a
// whole item, so that the model reads valid JSON and the notice; nil when
// the result is not one such.
func cutTextList(res *ToolResult, limit int, c *resultCut) *ToolResult {
	if len(res.Content) != 1 {
		return nil
	}
	t, ok := res.Content[0].(*TextContent)
	if !ok || t.Text == "" || t.Text[0] != '[' && t.Text[0] != '{' {
		return nil
	}
	var doc bytes.Buffer
	if json.Compact(&doc, []byte(t.Text)) != nil {
		return nil
	}
	l, ok := findList(doc.Bytes())
	if !ok {
		return nil
	}
	try := func(n int) *ToolResult {
		return &ToolResult{IsError: res.IsError, Meta: res.Meta,
			Content: []Content{&TextContent{Text: string(l.keep(n)) + "\n\n" + listNotice(n, len(l.items), limit, c.byClient, l.hasMore[0] >= 0)}}}
	}
	n := largestFitting(len(l.items), limit, try)
	if n == 0 {
		return nil
	}
	c.items, c.of = n, len(l.items)
	return try(n)
}

// largestFitting is the largest n in [1, items] for which try(n) fits
// limit, or 0 when none does; sizes grow with n.
func largestFitting(items, limit int, try func(n int) *ToolResult) int {
	if encodedSize(try(1)) > limit {
		return 0
	}
	lo, hi := 1, items
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if encodedSize(try(mid)) <= limit {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// encodedSize is the length of res's encoded members, or -1 when they do
// not encode.
func encodedSize(res *ToolResult) int {
	b, err := res.appendMembers(make([]byte, 0, 1024), false)
	if err != nil {
		return -1
	}
	return len(b)
}

// structuredJSON returns res's structured content as compact JSON.
func structuredJSON(res *ToolResult) ([]byte, bool) {
	var b []byte
	var err error
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		b, err = appendCompact(nil, raw)
	} else {
		b, err = json.Marshal(res.StructuredContent)
	}
	return b, err == nil
}

// listShape describes a list-shaped structured result: an object with
// exactly one array member, and a boolean hasMore member, at its top
// level or in one of its object members (entity's paging). start and end
// bound each of the array's items in the object's JSON.
type listShape struct {
	doc     []byte
	items   [][2]int // each item's offsets in doc
	arrEnd  int      // the offset of the array's closing bracket
	hasMore [2]int   // the offsets of hasMore's value in doc
}

// findList reads doc (compact JSON) as a list-shaped result, or reports
// that it is not one.
func findList(doc []byte) (*listShape, bool) {
	if jsontext.TypeOf(doc) == jsontext.Array {
		l := &listShape{doc: doc, hasMore: [2]int{-1, -1}}
		l.readItems(0, len(doc))
		return l, len(l.items) > 0
	}
	if jsontext.TypeOf(doc) != jsontext.Object {
		return nil, false
	}
	l := &listShape{doc: doc, hasMore: [2]int{-1, -1}}
	arrays := 0
	eachMemberAt(doc, 0, func(key []byte, start, end int) {
		switch jsontext.TypeOf(doc[start:end]) {
		case jsontext.Array:
			arrays++
			l.readItems(start, end)
		case jsontext.Bool:
			if string(key) == `"hasMore"` {
				l.hasMore = [2]int{start, end}
			}
		case jsontext.Object:
			eachMemberAt(doc, start, func(k []byte, s, e int) {
				if string(k) == `"hasMore"` && jsontext.TypeOf(doc[s:e]) == jsontext.Bool {
					l.hasMore = [2]int{s, e}
				}
			})
		}
	})
	return l, arrays == 1 && l.hasMore[0] >= 0 && len(l.items) > 0
}

// readItems reads the items of the array doc[start:end].
func (l *listShape) readItems(start, end int) {
	l.items, l.arrEnd = l.items[:0], end-1
	for i := jsontext.SkipSpace(l.doc, start+1); i < end-1; {
		e := jsontext.ValueEnd(l.doc, i)
		l.items = append(l.items, [2]int{i, e})
		var more bool
		if i, more = jsontext.NextMember(l.doc, e); !more {
			break
		}
	}
}

// eachMemberAt calls f with the quoted key and the offsets of the value
// of each member of the object that opens at doc[open].
func eachMemberAt(doc []byte, open int, f func(key []byte, start, end int)) {
	i := jsontext.SkipSpace(doc, open+1)
	for i < len(doc) && doc[i] == '"' {
		keyEnd, _ := jsontext.StringEnd(doc, i)
		start := jsontext.SkipSpace(doc, jsontext.SkipSpace(doc, keyEnd)+1)
		end := jsontext.ValueEnd(doc, start)
		f(doc[i:keyEnd], start, end)
		var more bool
		if i, more = jsontext.NextMember(doc, end); !more {
			break
		}
	}
}

// keep returns the document with the first n items of the list and
// hasMore true.
func (l *listShape) keep(n int) []byte {
	b := make([]byte, 0, len(l.doc))
	cut := l.items[0][0]
	if n > 0 {
		cut = l.items[n-1][1]
	}
	first, second := [2]int{cut, l.arrEnd}, l.hasMore // the spans replaced
	if second[0] < 0 {                                // a bare array
		b = append(b, l.doc[:first[0]]...)
		return append(b, l.doc[first[1]:]...)
	}
	if second[0] < first[0] {
		b = append(b, l.doc[:second[0]]...)
		b = append(b, "true"...)
		b = append(b, l.doc[second[1]:first[0]]...)
		return append(b, l.doc[first[1]:]...)
	}
	b = append(b, l.doc[:first[0]]...)
	b = append(b, l.doc[first[1]:second[0]]...)
	b = append(b, "true"...)
	return append(b, l.doc[second[1]:]...)
}

// cutList cuts a list-shaped structured result at a whole item so that
// it fits, with hasMore set; the text block that repeated the structured
// JSON repeats the kept part, followed by the notice. It returns nil when
// the result is not list-shaped or no item fits.
func (s *Server) cutList(res *ToolResult, limit int, c *resultCut) *ToolResult {
	doc, ok := structuredJSON(res)
	if !ok {
		return nil
	}
	l, ok := findList(doc)
	if !ok {
		return nil
	}
	mirror := -1 // the text block that repeats the structured JSON
	for i, b := range res.Content {
		if t, ok := b.(*TextContent); ok && jsonEqualText(t.Text, doc) {
			mirror = i
			break
		}
	}
	try := func(n int) *ToolResult {
		kept := l.keep(n)
		out := &ToolResult{Content: res.Content, IsError: res.IsError, Meta: res.Meta, StructuredContent: json.RawMessage(kept)}
		if mirror >= 0 {
			out.Content = append([]Content(nil), res.Content...)
			out.Content[mirror] = &TextContent{Text: string(kept) + "\n\n" + listNotice(n, len(l.items), limit, c.byClient, l.hasMore[0] >= 0)}
		}
		return out
	}
	n := largestFitting(len(l.items), limit, try)
	if n == 0 {
		return nil
	}
	c.items, c.of = n, len(l.items)
	return try(n)
}

// jsonEqualText reports whether text is doc, the compact JSON of a
// structured result, as a typed tool or entity writes it in the text
// block: the same bytes, or the same JSON spaced otherwise.
func jsonEqualText(text string, doc []byte) bool {
	if len(text) == len(doc) && text == string(doc) {
		return true
	}
	if len(text) < len(doc) || text == "" || text[0] != doc[0] {
		return false
	}
	var b bytes.Buffer
	return json.Compact(&b, []byte(text)) == nil && bytes.Equal(b.Bytes(), doc)
}

// cutContent cuts res's content to fit limit: blocks other than text that
// do not fit are left out, then the text blocks are cut, the last kept
// text block ending with the notice.
func cutContent(res *ToolResult, limit int, c *resultCut) *ToolResult {
	out := &ToolResult{IsError: res.IsError, Meta: res.Meta, StructuredContent: res.StructuredContent}
	var texts []string
	for _, b := range res.Content {
		if t, ok := b.(*TextContent); ok {
			texts = append(texts, t.Text)
			c.ofText += utf8.RuneCountInString(t.Text)
		}
	}
	// Room for the text: the budget less what the other blocks take.
	base := encodedSize(&ToolResult{IsError: res.IsError, StructuredContent: res.StructuredContent, Content: []Content{Text("")}})
	room := limit - base - noticeBytes
	for _, b := range res.Content {
		if _, ok := b.(*TextContent); ok {
			continue
		}
		n := encodedSize(&ToolResult{Content: []Content{b}}) - len(`"content":[]`)
		if n+1 > room {
			c.droppedBlocks++
			continue
		}
		room -= n + 1
		out.Content = append(out.Content, b)
	}
	text := cutTexts(texts, max(room, 0))
	c.chars = utf8.RuneCountInString(text)
	if c.ofText == 0 {
		c.ofText = 1 // the notice is the text: say it was cut
	}
	notice := textNotice(c)
	if text != "" {
		text += "\n\n"
	}
	out.Content = append([]Content{Text(text + notice)}, out.Content...)
	return out
}

// cutTexts joins texts and cuts them to at most room bytes as encoded in
// JSON, at a character.
func cutTexts(texts []string, room int) string {
	var all string
	switch len(texts) {
	case 0:
		return ""
	case 1:
		all = texts[0]
	default:
		all = joinTexts(texts)
	}
	if len(all) <= room && jsonLen(all) <= room {
		return all
	}
	n := min(room, len(all)-1)
	for n > 0 {
		for n > 0 && !utf8.RuneStart(all[n]) {
			n--
		}
		over := jsonLen(all[:n]) - room
		if over <= 0 {
			return all[:n]
		}
		n -= over
	}
	return ""
}

func joinTexts(texts []string) string {
	var b []byte
	for i, t := range texts {
		if i > 0 {
			b = append(b, '\n')
		}
		b = append(b, t...)
	}
	return string(b)
}

// jsonLen is the length of s as a JSON string's body.
func jsonLen(s string) int {
	return len((&TextContent{Text: s}).appendJSON(nil)) - len(`{"type":"text","text":""}`)
}

// listNotice tells the model a list was cut, and how to go on.
func listNotice(kept, of, limit int, byClient, hasMore bool) string {
	n := "[the list was cut at " + groupDigits(kept) + " of " + groupDigits(of) + " items to fit " + budgetName(limit, byClient)
	if hasMore {
		n += "; hasMore is set"
	}
	return n + ": ask for the next page, starting after these " + groupDigits(kept) + " items, or for fewer items per page]"
}

// textNotice tells the model its result was cut, and how to ask for less.
func textNotice(c *resultCut) string {
	n := "[the result was cut at " + groupDigits(c.chars) + " of " + groupDigits(c.ofText) + " characters to fit " + budgetName(c.limit, c.byClient)
	if c.droppedSC {
		n += "; its structured content was left out"
	}
	if c.droppedBlocks > 0 {
		n += "; " + strconv.Itoa(c.droppedBlocks) + " image, audio or resource block(s) were left out"
	}
	return n + "; ask for less: fewer rows, a narrower filter, or a part of it]"
}

// budgetName names the bound that cut a result.
func budgetName(limit int, byClient bool) string {
	if byClient {
		return "the client's limit of " + groupDigits(limit) + " bytes"
	}
	return "the result budget of " + groupDigits(limit) + " bytes"
}

// groupDigits writes n with commas between groups of three digits.
func groupDigits(n int) string {
	s := strconv.Itoa(n)
	if n < 0 || len(s) <= 3 {
		return s
	}
	b := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}
