package protoschema

import (
	"strings"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// maxDescription is the longest description every client accepts, in
// characters (the root's schema.MaxDescription).
const maxDescription = 1024

// comment returns d's leading comment from its file's source info, or its
// trailing comment when it has no leading one, tidied into sentences: one
// space between words, paragraphs kept. It returns "" without source info.
func comment(d protoreflect.Descriptor) string {
	fd := d.ParentFile()
	if fd == nil {
		return ""
	}
	loc := fd.SourceLocations().ByDescriptor(d)
	text := loc.LeadingComments
	if strings.TrimSpace(text) == "" {
		text = loc.TrailingComments
	}
	return tidy(text)
}

// tidy joins a comment's lines into paragraphs separated by a blank line.
func tidy(text string) string {
	var paras []string
	var cur []string
	flush := func() {
		if len(cur) > 0 {
			paras = append(paras, strings.Join(cur, " "))
			cur = nil
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		words := strings.Fields(line)
		if len(words) == 0 {
			flush()
			continue
		}
		cur = append(cur, strings.Join(words, " "))
	}
	flush()
	return strings.Join(paras, "\n\n")
}

// joinDescription joins the non-empty parts and notes into one
// description, cut to [maxDescription] characters at a word boundary with
// an ellipsis.
func joinDescription(parts ...any) string {
	var all []string
	for _, p := range parts {
		switch p := p.(type) {
		case string:
			if p != "" {
				all = append(all, ensurePeriod(p))
			}
		case []string:
			for _, s := range p {
				if s != "" {
					all = append(all, ensurePeriod(s))
				}
			}
		}
	}
	return truncate(strings.Join(all, " "), maxDescription)
}

// ensurePeriod ends s with a full stop unless it ends with punctuation.
func ensurePeriod(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	if strings.ContainsRune(".!?:)`\"", r) {
		return s
	}
	return s + "."
}

// truncate cuts s to at most max characters, at a space when one is near,
// ending with "…".
func truncate(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	runes := []rune(s)[:max-1]
	cut := string(runes)
	if i := strings.LastIndexByte(cut, ' '); i > len(cut)-80 && i > 0 {
		cut = cut[:i]
	}
	return cut + "…"
}
