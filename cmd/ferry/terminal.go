package main

// This file holds how ferry shows what a server sent. Text that could
// drive a terminal or disguise what it says is escaped before it is
// written: in the JSON on stdout, in the messages on stderr, and in a
// stdio server's own stderr, which ferry passes on.

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unsafeRune reports whether r, written raw, could drive a terminal or
// disguise text: a control character (C0 such as ESC, DEL, C1 such as
// U+009B, which terminals may read as ESC [), a format character
// (bidirectional overrides such as U+202E, zero-width characters, tags)
// or a line or paragraph separator (U+2028, U+2029).
func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp)
}

// plainText reports whether s can be written as it is: valid UTF-8
// without an unsafe rune.
func plainText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsFunc(s, unsafeRune)
}

// oneLine returns s with every unsafe rune escaped as Go writes it in a
// string literal (\n, \x1b, \u202e), and every byte that is not UTF-8
// as \xff: the result is one line, and shows what the server sent.
func oneLine(s string) string {
	if plainText(s) {
		return s
	}
	var sb strings.Builder
	escapeText(&sb, s, nil)
	return sb.String()
}

// escapeText writes s to sb escaped as oneLine does, except the runes
// keep allows through.
func escapeText(sb *strings.Builder, s string, keep func(rune) bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			sb.WriteString(`\x`)
			sb.WriteString(strconv.FormatUint(uint64(s[i])>>4, 16))
			sb.WriteString(strconv.FormatUint(uint64(s[i])&0xf, 16))
		case unsafeRune(r) && (keep == nil || !keep(r)):
			q := strconv.QuoteRune(r)
			sb.WriteString(q[1 : len(q)-1])
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
}

// escapeJSON returns the JSON text data with every unsafe rune beyond
// ASCII's printable range written as a \u escape (a UTF-16 surrogate pair
// beyond the BMP), and every byte that is not UTF-8 as \ufffd, which is
// what a JSON decoder reads it as. data must be valid JSON: such runes
// can then only be inside strings, where an escape means the same rune,
// so the document decodes to the same values. Structural white space
// (the line feeds and spaces of indentation) is kept.
func escapeJSON(data []byte) []byte {
	safe := func(r rune) bool { return r < utf8.RuneSelf && r != 0x7f }
	i := 0
	for i < len(data) {
		r, size := utf8.DecodeRune(data[i:])
		if !safe(r) && (unsafeRune(r) || r == utf8.RuneError && size == 1) {
			break
		}
		i += size
	}
	if i == len(data) {
		return data
	}
	out := append(make([]byte, 0, len(data)+64), data[:i]...)
	for i < len(data) {
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = appendUnicodeEscape(out, utf8.RuneError)
		case !safe(r) && unsafeRune(r):
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				out = appendUnicodeEscape(appendUnicodeEscape(out, r1), r2)
			} else {
				out = appendUnicodeEscape(out, r)
			}
		default:
			out = append(out, data[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendUnicodeEscape appends the JSON escape \uXXXX of the UTF-16 code
// unit r.
func appendUnicodeEscape(b []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	return append(b, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
}

// escapingWriter passes what is written to it on to w, each unsafe rune
// and each byte that is not UTF-8 escaped as [oneLine] does, except line
// feeds and tabs, so that lines stay lines: it carries a stdio server's
// stderr. The start of a rune cut between two writes is held back until
// the next. It is not safe for concurrent use; exec writes a command's
// stderr from one goroutine.
type escapingWriter struct {
	w    io.Writer
	held []byte // the start of a rune cut by the last write
}

func (e *escapingWriter) Write(p []byte) (int, error) {
	data := append(e.held, p...)
	e.held = nil
	if cut := incompleteTail(data); cut > 0 {
		e.held = append([]byte(nil), data[len(data)-cut:]...)
		data = data[:len(data)-cut]
	}
	var sb strings.Builder
	escapeText(&sb, string(data), func(r rune) bool { return r == '\n' || r == '\t' })
	if _, err := io.WriteString(e.w, sb.String()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// incompleteTail returns how many bytes at the end of data start a rune
// that more bytes could complete, or 0.
func incompleteTail(data []byte) int {
	for n := 1; n < utf8.UTFMax && n <= len(data); n++ {
		c := data[len(data)-n]
		if !utf8.RuneStart(c) {
			continue // a continuation byte: look further back
		}
		tail := data[len(data)-n:]
		if !utf8.FullRune(tail) {
			return n
		}
		return 0
	}
	return 0
}
