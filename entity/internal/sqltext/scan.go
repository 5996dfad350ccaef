package sqltext

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dialect is the engine whose quoting rules apply.
type Dialect uint8

// The dialects.
const (
	SQLite Dialect = iota + 1
	PostgreSQL
	MySQL
)

// Kind is the kind of a token.
type Kind uint8

// The token kinds.
const (
	Space      Kind = iota + 1 // white space
	Comment                    // -- ..., # ... (MySQL), /* ... */
	Word                       // a keyword or a bare name
	QuotedName                 // "name", `name`, [name] (SQLite)
	String                     // '...', E'...', $tag$...$tag$, "..." on MySQL
	Number                     // 12, 1.5e3, 0x1f
	Param                      // @name
	Punct                      // anything else: ( ) , ; :: operators
)

// Token is one token of a statement.
type Token struct {
	Kind Kind
	// Text is the token's text as written; for a Param, the name alone.
	Text string
	// Pos is the byte offset of the token in the statement.
	Pos int
}

// Error is a statement Scan cannot read, at a byte offset.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// scanner walks one statement.
type scanner struct {
	src  string
	d    Dialect
	pos  int
	toks []Token
}

// Scan splits src into tokens. Concatenated, the tokens' texts (with
// "@" before each Param's) give back src.
func Scan(src string, d Dialect) ([]Token, error) {
	if !utf8.ValidString(src) {
		return nil, &Error{0, "the statement is not valid UTF-8"}
	}
	if i := strings.IndexByte(src, 0); i >= 0 {
		return nil, &Error{i, "the statement holds a NUL character"}
	}
	s := &scanner{src: src, d: d}
	for s.pos < len(src) {
		if err := s.next(); err != nil {
			return nil, err
		}
	}
	return s.toks, nil
}

func (s *scanner) emit(k Kind, end int) {
	s.toks = append(s.toks, Token{Kind: k, Text: s.src[s.pos:end], Pos: s.pos})
	s.pos = end
}

func (s *scanner) fail(format string, args ...any) error {
	return &Error{s.pos, fmt.Sprintf(format, args...)}
}

// at reports the byte at offset i from the position, or 0 past the end.
func (s *scanner) at(i int) byte {
	if s.pos+i < len(s.src) {
		return s.src[s.pos+i]
	}
	return 0
}

func (s *scanner) next() error {
	c := s.src[s.pos]
	switch {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		end := s.pos
		for end < len(s.src) && strings.IndexByte(" \t\n\r\f\v", s.src[end]) >= 0 {
			end++
		}
		s.emit(Space, end)
		return nil
	case c == '-' && s.at(1) == '-' && (s.d != MySQL || isMySQLDashEnd(s.at(2))):
		s.lineComment()
		return nil
	case c == '#' && s.d == MySQL:
		s.lineComment()
		return nil
	case c == '/' && s.at(1) == '*':
		return s.blockComment()
	case c == '\'':
		return s.quoted(String, '\'', s.d == MySQL, 1)
	case (c == 'E' || c == 'e') && s.at(1) == '\'' && s.d == PostgreSQL:
		return s.quoted(String, '\'', true, 2)
	case c == '"' && s.d == MySQL:
		return s.quoted(String, '"', true, 1)
	case c == '"':
		return s.quoted(QuotedName, '"', false, 1)
	case c == '`' && s.d != PostgreSQL:
		return s.quoted(QuotedName, '`', false, 1)
	case c == '[' && s.d == SQLite:
		end := strings.IndexByte(s.src[s.pos:], ']')
		if end < 0 {
			return s.fail("a [name] left open")
		}
		s.emit(QuotedName, s.pos+end+1)
		return nil
	case c == '$' && s.d == PostgreSQL:
		return s.dollar()
	case c == '@':
		return s.param()
	case c == '?':
		return s.fail("a ? placeholder: write parameters as @name")
	case c == ':' && s.at(1) == ':':
		s.emit(Punct, s.pos+2)
		return nil
	case c == ':' && isNameStart(rune(s.at(1))):
		return s.fail("a :name placeholder: write parameters as @name")
	case c >= '0' && c <= '9' || c == '.' && s.at(1) >= '0' && s.at(1) <= '9':
		s.number()
		return nil
	}
	r, size := utf8.DecodeRuneInString(s.src[s.pos:])
	if isNameStart(r) {
		end := s.pos + size
		for end < len(s.src) {
			r, n := utf8.DecodeRuneInString(s.src[end:])
			if !isNamePart(r) && !(r == '$' && s.d != SQLite) {
				break
			}
			end += n
		}
		s.emit(Word, end)
		return nil
	}
	s.emit(Punct, s.pos+size)
	return nil
}

// isMySQLDashEnd says whether the byte after "--" makes it a comment on
// MySQL, which wants white space or a control character (or the end).
func isMySQLDashEnd(c byte) bool { return c <= ' ' }

func isNameStart(r rune) bool {
	return r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= utf8.RuneSelf && (unicode.IsLetter(r))
}

func isNamePart(r rune) bool {
	return isNameStart(r) || r >= '0' && r <= '9' || r >= utf8.RuneSelf && unicode.IsDigit(r)
}

func (s *scanner) lineComment() {
	end := strings.IndexByte(s.src[s.pos:], '\n')
	if end < 0 {
		s.emit(Comment, len(s.src))
		return
	}
	s.emit(Comment, s.pos+end)
}

// blockComment reads /* ... */, nested on PostgreSQL. MySQL's executable
// comments (/*! ... */, MariaDB's /*M! ... */) run their text: refused.
func (s *scanner) blockComment() error {
	if s.d == MySQL && (s.at(2) == '!' || (s.at(2) == 'M' || s.at(2) == 'm') && s.at(3) == '!') {
		return s.fail("an executable comment /*! ... */: MySQL runs its text; write it as plain SQL")
	}
	depth, i := 1, s.pos+2
	for i < len(s.src) {
		switch {
		case s.src[i] == '*' && i+1 < len(s.src) && s.src[i+1] == '/':
			depth--
			i += 2
			if depth == 0 || s.d != PostgreSQL {
				s.emit(Comment, i)
				return nil
			}
		case s.d == PostgreSQL && s.src[i] == '/' && i+1 < len(s.src) && s.src[i+1] == '*':
			depth++
			i += 2
		default:
			i++
		}
	}
	return s.fail("a /* comment left open")
}

// quoted reads a string or quoted name opened by q after skip bytes
// (E' is two), where q doubled stands for itself and, if backslash, a
// backslash escapes the next byte.
func (s *scanner) quoted(k Kind, q byte, backslash bool, skip int) error {
	i := s.pos + skip
	for i < len(s.src) {
		switch c := s.src[i]; {
		case c == '\\' && backslash:
			i += 2
		case c == q && i+1 < len(s.src) && s.src[i+1] == q:
			i += 2
		case c == q:
			s.emit(k, i+1)
			return nil
		default:
			i++
		}
	}
	if k == String {
		return s.fail("a string left open")
	}
	return s.fail("a quoted name left open")
}

// dollar reads a PostgreSQL $tag$ string; $1 is refused.
func (s *scanner) dollar() error {
	if c := s.at(1); c >= '0' && c <= '9' {
		return s.fail("a $n placeholder: write parameters as @name")
	}
	i := s.pos + 1
	for i < len(s.src) && s.src[i] != '$' {
		r, n := utf8.DecodeRuneInString(s.src[i:])
		if !isNamePart(r) {
			s.emit(Punct, s.pos+1)
			return nil
		}
		i += n
	}
	if i >= len(s.src) {
		s.emit(Punct, s.pos+1)
		return nil
	}
	tag := s.src[s.pos : i+1]
	end := strings.Index(s.src[i+1:], tag)
	if end < 0 {
		return s.fail("a %s string left open", tag)
	}
	s.emit(String, i+1+end+len(tag))
	return nil
}

// param reads @name; @@ (a MySQL system variable) is punctuation, and so
// is an @ before no name.
func (s *scanner) param() error {
	if s.at(1) == '@' {
		s.emit(Punct, s.pos+2)
		return nil
	}
	r, _ := utf8.DecodeRuneInString(s.src[s.pos+1:])
	if s.pos+1 >= len(s.src) || !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
		s.emit(Punct, s.pos+1)
		return nil
	}
	end := s.pos + 1
	for end < len(s.src) {
		c := s.src[end]
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(c >= '0' && c <= '9') {
			break
		}
		end++
	}
	s.toks = append(s.toks, Token{Kind: Param, Text: s.src[s.pos+1 : end], Pos: s.pos})
	s.pos = end
	return nil
}

func (s *scanner) number() {
	src, end := s.src, s.pos
	isHex := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }
	if src[end] == '0' && end+2 < len(src) && (src[end+1] == 'x' || src[end+1] == 'X') && isHex(src[end+2]) {
		end += 2
		for end < len(src) && (isHex(src[end]) || src[end] == '_') {
			end++
		}
		s.emit(Number, end)
		return
	}
	for end < len(src) && (src[end] >= '0' && src[end] <= '9' || src[end] == '.' || src[end] == '_') {
		end++
	}
	if end < len(src) && (src[end] == 'e' || src[end] == 'E') {
		i := end + 1
		if i < len(src) && (src[i] == '+' || src[i] == '-') {
			i++
		}
		if i < len(src) && src[i] >= '0' && src[i] <= '9' {
			for end = i; end < len(src) && src[end] >= '0' && src[end] <= '9'; end++ {
			}
		}
	}
	s.emit(Number, end)
}
