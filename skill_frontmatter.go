package ferry

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file reads a SKILL.md's front matter: the YAML block between two
// "---" lines at the top of the file. Ferry reads the part of YAML that
// front matter uses (the Agent Skills format's fields): top-level
// "key: value" lines whose values are strings (plain, 'single' or
// "double" quoted), and maps of such lines one level deep (metadata).
// Anything else is refused at start-up with the line it is on, rather
// than read differently from how a client's YAML parser would read it:
// the skills/list entry carries the front matter as JSON, and a client
// compares it with the file's.

// skillNamePattern is the Agent Skills rule for a skill's name: 1 to 64
// lowercase letters, digits and hyphens, with no hyphen first, last or
// next to another.
var skillNamePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$`)

// validSkillName reports whether name follows the Agent Skills rule.
func validSkillName(name string) bool {
	return skillNamePattern.MatchString(name) && !strings.Contains(name, "--")
}

// maxSkillDescription is the longest description the Agent Skills format
// allows, in characters.
const maxSkillDescription = 1024

// frontMatterKey is what a front matter key may be.
var frontMatterKey = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.\-/]*$`)

// yamlNonString matches the plain scalars that YAML reads as something
// other than a string (null, booleans, numbers): a value like that must be
// quoted to be a string.
var yamlNonString = regexp.MustCompile(`^(~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?|0x[0-9a-fA-F_]+|0o[0-7_]+|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$`)

// parseFrontMatter returns the front matter of a SKILL.md as a JSON-ready
// map. An error names the line at fault.
func parseFrontMatter(data []byte) (map[string]any, error) {
	if !utf8.Valid(data) {
		return nil, errors.New("SKILL.md is not UTF-8")
	}
	text := strings.TrimPrefix(string(data), "\uFEFF")
	lines := strings.Split(text, "\n")
	for i := range lines {
		lines[i] = strings.TrimSuffix(lines[i], "\r")
	}
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return nil, errors.New(`SKILL.md does not begin with front matter (a "---" line, the YAML, a "---" line)`)
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return nil, errors.New(`SKILL.md's front matter has no closing "---" line`)
	}
	fm := map[string]any{}
	var nested map[string]any // the map being filled, under its key
	for i := 1; i < end; i++ {
		line, n := lines[i], i+1
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if strings.Contains(line, "\t") && strings.TrimLeft(line, " ") != strings.TrimLeft(line, " \t") {
			return nil, fmt.Errorf("front matter line %d: indented with a tab, which YAML does not allow", n)
		}
		indented := line[0] == ' '
		if indented && nested == nil {
			return nil, fmt.Errorf("front matter line %d: an indented line that continues no map (a value over several lines must be quoted on one)", n)
		}
		if !indented {
			nested = nil
		}
		key, value, err := frontMatterLine(trimmed)
		if err != nil {
			return nil, fmt.Errorf("front matter line %d: %w", n, err)
		}
		into := fm
		if indented {
			into = nested
		}
		if _, dup := into[key]; dup {
			return nil, fmt.Errorf("front matter line %d: the key %q appears twice", n, key)
		}
		if value == nil {
			if indented {
				return nil, fmt.Errorf("front matter line %d: %q has no value (maps nest one level deep)", n, key)
			}
			nested = map[string]any{}
			into[key] = nested
			continue
		}
		into[key] = *value
	}
	return fm, checkFrontMatter(fm)
}

// frontMatterLine reads one "key: value" line; value is nil when the
// line opens a map ("key:" and nothing after it).
func frontMatterLine(line string) (string, *string, error) {
	key, rest, ok := strings.Cut(line, ":")
	if !ok {
		return "", nil, fmt.Errorf("%q is not a \"key: value\" line", line)
	}
	key = strings.TrimSpace(key)
	if !frontMatterKey.MatchString(key) {
		return "", nil, fmt.Errorf("the key %q is not a plain name", key)
	}
	if rest != "" && rest[0] != ' ' {
		return "", nil, fmt.Errorf("%q: a key's colon must be followed by a space", line)
	}
	rest = strings.TrimSpace(rest)
	if rest == "" {
		return key, nil, nil
	}
	v, err := yamlScalar(rest)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", key, err)
	}
	return key, &v, nil
}

// yamlScalar reads a one-line string scalar: quoted, or plain where YAML
// reads it as the same string.
func yamlScalar(s string) (string, error) {
	switch s[0] {
	case '"':
		return doubleQuoted(s)
	case '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' {
			return "", errors.New("a single-quoted value must end with a quote on the same line")
		}
		inner := s[1 : len(s)-1]
		if strings.Contains(strings.ReplaceAll(inner, "''", ""), "'") {
			return "", errors.New("a quote inside a single-quoted value must be doubled ('')")
		}
		return strings.ReplaceAll(inner, "''", "'"), nil
	case '[', '{', '&', '*', '!', '|', '>', '%', '@', '`', '#':
		return "", fmt.Errorf("%q is not a plain string in YAML (quote it)", s)
	}
	if strings.HasPrefix(s, "- ") || strings.HasPrefix(s, "? ") || s == "-" || strings.Contains(s, ": ") || strings.Contains(s, " #") || strings.HasSuffix(s, ":") {
		return "", fmt.Errorf("%q is not read as this string by YAML (quote it)", s)
	}
	if yamlNonString.MatchString(s) {
		return "", fmt.Errorf("%q is not a string in YAML (quote it)", s)
	}
	return s, nil
}

// doubleQuoted reads a double-quoted YAML scalar with the common escapes.
func doubleQuoted(s string) (string, error) {
	if len(s) < 2 || s[len(s)-1] != '"' || strings.HasSuffix(s, `\"`) && !strings.HasSuffix(s, `\\"`) {
		return "", errors.New("a double-quoted value must end with a quote on the same line")
	}
	var b bytes.Buffer
	in := s[1 : len(s)-1]
	for i := 0; i < len(in); i++ {
		c := in[i]
		switch {
		case c == '"':
			return "", errors.New(`a quote inside a double-quoted value must be escaped (\")`)
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(in) {
			return "", errors.New("a double-quoted value ends with a lone backslash")
		}
		switch e := in[i]; e {
		case '"', '\\', '/':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'u':
			if i+5 > len(in) {
				return "", errors.New(`\u needs four hex digits`)
			}
			r, err := strconv.ParseUint(in[i+1:i+5], 16, 32)
			if err != nil {
				return "", errors.New(`\u needs four hex digits`)
			}
			b.WriteRune(rune(r))
			i += 4
		default:
			return "", fmt.Errorf(`the escape \%c is not one Ferry reads (use \", \\, \/, \n, \t, \r or \uXXXX)`, e)
		}
	}
	return b.String(), nil
}

// checkFrontMatter checks the fields the Agent Skills format requires.
func checkFrontMatter(fm map[string]any) error {
	var errs []error
	name, _ := fm["name"].(string)
	switch {
	case name == "":
		errs = append(errs, errors.New("front matter has no name"))
	case !validSkillName(name):
		errs = append(errs, fmt.Errorf("front matter name %q: a skill's name is 1 to 64 lowercase letters, digits and single hyphens, neither first nor last", name))
	}
	desc, _ := fm["description"].(string)
	switch {
	case desc == "":
		errs = append(errs, errors.New("front matter has no description"))
	case utf8.RuneCountInString(desc) > maxSkillDescription:
		errs = append(errs, fmt.Errorf("front matter description is over %d characters", maxSkillDescription))
	}
	if meta, ok := fm["metadata"].(map[string]any); ok {
		for _, k := range slices.Sorted(maps.Keys(meta)) {
			if strings.HasPrefix(k, "io.modelcontextprotocol/") {
				errs = append(errs, fmt.Errorf("front matter metadata key %q: the io.modelcontextprotocol/ prefix is reserved for MCP extensions", k))
			}
		}
	} else if _, has := fm["metadata"]; has {
		errs = append(errs, errors.New("front matter metadata must be a map"))
	}
	for _, k := range slices.Sorted(maps.Keys(fm)) {
		if _, isMap := fm[k].(map[string]any); isMap && k != "metadata" {
			errs = append(errs, fmt.Errorf("front matter %q is a map; only metadata may be one", k))
		}
	}
	return errors.Join(errs...)
}
