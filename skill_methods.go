package ferry

import (
	"context"
	"strconv"
	"strings"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file holds the methods of the skills extension: skills/list,
// skills/get and resources/directory/read (skill.go holds the skills).

// listSkills answers skills/list: a page of the skills the caller may
// see, each entry whole (a skill is never split across pages).
func (s *Server) listSkills(ctx context.Context, r *request, b []byte) ([]byte, error) {
	return listPage(s, r, b, &s.skills.reg, listFilter[*skillEntry]{
		visible: func(e *skillEntry) bool { return s.allowsEntry(ctx, e.scopes, e.roles) }})
}

// getSkill answers skills/get: the entry of the skill whose SKILL.md
// params.uri names. A URI that names no skill the caller may see is
// -32602, as the extension says.
func (s *Server) getSkill(ctx context.Context, r *request, b []byte) ([]byte, error) {
	uri := r.params.URI
	if uri == "" {
		return b, NewError(CodeInvalidParams, "skills/get needs a uri: the skill's SKILL.md, such as skill://name/SKILL.md")
	}
	s.mu.RLock()
	e, ok := s.skills.reg.get(uri)
	s.mu.RUnlock()
	if !ok || !s.seesSkill(ctx, r, e) {
		return b, NewError(CodeInvalidParams, "%q names no skill this server serves (skills/list lists them)", uri)
	}
	b = appendKey(b, "skill")
	b = append(b, e.json...)
	if r.modern {
		b = appendCacheable(b, e.guarded())
	}
	return b, nil
}

// seesSkill reports whether the caller of r may see the skill e.
func (s *Server) seesSkill(ctx context.Context, r *request, e *skillEntry) bool {
	return r.peer.groups.admits(e.groups) && s.allowsEntry(ctx, e.scopes, e.roles)
}

// directoryMIME is the MIME type of a directory in a directory read.
const directoryMIME = "inode/directory"

// readSkillDirectory answers resources/directory/read for a skill's
// directory (skill://<name> or a directory within it): its direct
// children, files with their MIME type and size, subdirectories as
// inode/directory. A skill has at most [SkillOptions.MaxFiles] files, so
// the answer is one page. A URI that is not a directory of a skill the
// caller may see is -32602.
func (s *Server) readSkillDirectory(ctx context.Context, r *request, b []byte) ([]byte, error) {
	uri := r.params.URI
	if c := r.params.Cursor; c != nil && *c != "" {
		return b, NewError(CodeInvalidParams, "invalid cursor %q: a directory is read in one page", *c)
	}
	rest, ok := strings.CutPrefix(uri, skillScheme)
	if !ok {
		return b, NewError(CodeInvalidParams, "%q is not a directory this server serves: directories are a skill's, under skill://", uri)
	}
	name, sub, _ := strings.Cut(strings.TrimSuffix(rest, "/"), "/")
	s.mu.RLock()
	e, found := s.skills.reg.get(skillURI(name, "SKILL.md"))
	s.mu.RUnlock()
	if !found || !s.seesSkill(ctx, r, e) {
		return b, NewError(CodeInvalidParams, "%q is not a directory this server serves", uri)
	}
	base := skillScheme + name + "/"
	prefix := base
	if sub != "" {
		prefix += sub + "/"
	}
	b = appendKey(b, "resources")
	b = append(b, '[')
	n, lastDir := 0, ""
	for i := range e.files {
		f := &e.files[i]
		tail, in := strings.CutPrefix(f.uri, prefix)
		if !in {
			continue
		}
		child, _, isDir := strings.Cut(tail, "/")
		if isDir && child == lastDir {
			continue // files are in path order: a directory's are together
		}
		if n > 0 {
			b = append(b, ',')
		}
		if isDir {
			lastDir = child
			b = appendDirChild(b, prefix+child, child)
		} else {
			b = appendFileChild(b, f, tail)
		}
		n++
	}
	if n == 0 && sub != "" {
		return b, NewError(CodeInvalidParams, "%q is not a directory this server serves (a file is read with resources/read)", uri)
	}
	b = append(b, ']')
	if r.modern {
		b = appendCacheable(b, e.guarded())
	}
	return b, nil
}

// appendDirChild appends a subdirectory as a directory read lists it.
func appendDirChild(b []byte, uri, name string) []byte {
	b = append(b, `{"uri":`...)
	b = jsontext.AppendString(b, uri)
	b = append(b, `,"name":`...)
	b = jsontext.AppendString(b, name)
	return append(b, `,"mimeType":"`+directoryMIME+`"}`...)
}

// appendFileChild appends a file as a directory read lists it.
func appendFileChild(b []byte, f *skillFile, name string) []byte {
	b = append(b, `{"uri":`...)
	b = jsontext.AppendString(b, f.uri)
	b = append(b, `,"name":`...)
	b = jsontext.AppendString(b, name)
	b = append(b, `,"mimeType":`...)
	b = jsontext.AppendString(b, f.mime)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(len(f.data)), 10)
	return append(b, '}')
}
