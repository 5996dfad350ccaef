package ferry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/jsontext"
)

// This file holds the skills extension (io.modelcontextprotocol/skills,
// SEP-2640): a skill is a directory with a SKILL.md (YAML front matter
// with the skill's name and description, then instructions for a model)
// and the files it refers to. The server serves each file as a resource
// under skill://<name>/<path>, lists its skills with skills/list (each
// entry its front matter and a manifest of its files: URI, SHA-256
// digest, size), returns one with skills/get, and lists a skill's
// directory with resources/directory/read. skill_methods.go holds the
// three methods, skill_frontmatter.go the front matter's reader and
// skill_tools.go the skills the server writes about its own tools.

// SkillOptions turn on the skills extension: the server declares
// io.modelcontextprotocol/skills (with directoryRead) and answers
// skills/list, skills/get and resources/directory/read. The extension
// asks nothing of the client: its methods are answered whether or not
// the client declared it. Skills are added with [Server.AddSkill],
// [Server.AddSkills] and [Server.AddToolSkill].
type SkillOptions struct {
	// MaxFileBytes bounds one file of a skill: a larger one is a start-up
	// problem (see [Server.Check]). If zero, [DefaultMaxSkillFileBytes].
	MaxFileBytes int64
	// MaxSkillBytes bounds the size of a skill's files together. If zero,
	// [DefaultMaxSkillBytes], the extension's own bound.
	MaxSkillBytes int64
	// MaxFiles bounds how many files a skill has, SKILL.md included. If
	// zero, [DefaultMaxSkillFiles], the extension's own bound.
	MaxFiles int
}

// The defaults of [SkillOptions].
const (
	// DefaultMaxSkillFileBytes bounds one file of a skill when
	// [SkillOptions.MaxFileBytes] is zero.
	DefaultMaxSkillFileBytes = 4 << 20
	// DefaultMaxSkillBytes bounds a skill's files together when
	// [SkillOptions.MaxSkillBytes] is zero: 16 MiB, past which the
	// extension says a server should not serve a skill.
	DefaultMaxSkillBytes = 16 << 20
	// DefaultMaxSkillFiles bounds a skill's files when
	// [SkillOptions.MaxFiles] is zero: 512, past which the extension says
	// a server should not serve a skill.
	DefaultMaxSkillFiles = 512
)

// Skill is a skill to serve: a directory holding SKILL.md and the files
// it refers to.
type Skill struct {
	// FS holds the skill's directory at its root: SKILL.md and the rest,
	// in subdirectories as the skill wants (an [embed.FS] under [fs.Sub],
	// an [os.DirFS]). Files and directories whose names begin with a dot
	// are left out; a symbolic link or other special file is a problem.
	FS fs.FS
	// Scopes and Roles are what a caller needs to see the skill and read
	// its files, as for [Tool.Scopes] and [Tool.Roles]: a caller who lacks
	// them finds the skill in no list and reads its files as not found.
	Scopes []string
	Roles  []string
	// Groups name the groups the skill belongs to, as [Tool.Groups] does.
	// If nil, the skill belongs to no group.
	Groups []string
}

// skillSet is the server's skills, when the extension is on.
type skillSet struct {
	opts SkillOptions
	// reg holds the skills by the URI of their SKILL.md; guarded by the
	// server's mu.
	reg registry[*skillEntry]
}

func newSkillSet(opts *SkillOptions) *skillSet {
	ss := &skillSet{opts: *opts}
	if ss.opts.MaxFileBytes <= 0 {
		ss.opts.MaxFileBytes = DefaultMaxSkillFileBytes
	}
	if ss.opts.MaxSkillBytes <= 0 {
		ss.opts.MaxSkillBytes = DefaultMaxSkillBytes
	}
	if ss.opts.MaxFiles <= 0 {
		ss.opts.MaxFiles = DefaultMaxSkillFiles
	}
	return ss
}

// skillEntry is a served skill.
type skillEntry struct {
	requirement
	name   string
	uri    string // skill://<name>/SKILL.md
	groups []string
	files  []skillFile // in path order, SKILL.md among them
	json   []byte      // the skills/list entry
}

func (e *skillEntry) key() string          { return e.uri }
func (e *skillEntry) wire() []byte         { return e.json }
func (e *skillEntry) groupNames() []string { return e.groups }

// skillFile is one file of a skill.
type skillFile struct {
	path   string // slash-separated, within the skill
	uri    string
	mime   string
	digest string // sha256:<hex>
	data   []byte
	text   bool // served as text: a text type, and UTF-8
}

// skillScheme is the scheme of a skill's resources.
const skillScheme = "skill://"

// skillURI returns the URI of a skill's file.
func skillURI(name, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return skillScheme + name + "/" + strings.Join(segs, "/")
}

// AddSkill serves a skill: its SKILL.md is read and checked, its files
// are read into memory, digested and served as resources under
// skill://<name>/. What is wrong with it (no SKILL.md, malformed front
// matter, a file or the whole over the bounds of [SkillOptions], a name
// another skill has, the extension off) is a start-up problem that
// [Server.Check] reports, and the skill is not served.
func (s *Server) AddSkill(sk Skill) {
	s.addSkill(sk, "")
}

// AddSkills serves each directory at the root of fsys as a skill (as
// [Server.AddSkill] does, with sk's access and groups; sk.FS is not
// read). A directory's name must be its skill's name. A root directory
// without a SKILL.md is a problem, as is fsys without any directory.
func (s *Server) AddSkills(fsys fs.FS, sk Skill) {
	dirs, err := fs.ReadDir(fsys, ".")
	if err != nil {
		s.problem(fmt.Errorf("skills: reading the root: %w", err))
		return
	}
	n := 0
	for _, d := range dirs {
		if !d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			continue
		}
		sub, err := fs.Sub(fsys, d.Name())
		if err != nil {
			s.problem(fmt.Errorf("skill %q: %w", d.Name(), err))
			continue
		}
		one := sk
		one.FS = sub
		s.addSkill(one, d.Name())
		n++
	}
	if n == 0 {
		s.problem(errors.New("skills: the file system holds no skill directory"))
	}
}

// addSkill serves sk; dir, if not empty, is the name its directory gives it.
func (s *Server) addSkill(sk Skill, dir string) {
	where := dir
	if where == "" {
		where = "(AddSkill)"
	}
	if s.skills == nil {
		s.problem(fmt.Errorf("skill %s: the skills extension is off: set ServerOptions.Skills", where))
		return
	}
	if sk.FS == nil {
		s.problem(fmt.Errorf("skill %s: Skill.FS is nil", where))
		return
	}
	files, err := readSkillFiles(sk.FS, &s.skills.opts)
	if err != nil {
		s.problem(fmt.Errorf("skill %s: %w", where, err))
		return
	}
	fm, err := parseFrontMatter(files["SKILL.md"])
	if err != nil {
		s.problem(fmt.Errorf("skill %s: %w", where, err))
		return
	}
	name := fm["name"].(string)
	if dir != "" && dir != name {
		s.problem(fmt.Errorf("skill %s: its SKILL.md names it %q; a skill's directory must have its name", dir, name))
		return
	}
	s.serveSkill(name, fm, files, sk)
}

// readSkillFiles reads a skill's files, within the bounds.
func readSkillFiles(fsys fs.FS, opts *SkillOptions) (map[string][]byte, error) {
	files := map[string][]byte{}
	var total int64
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != "." && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file (a link or a device): a skill holds files only", p)
		}
		if len(files) == opts.MaxFiles {
			return fmt.Errorf("more than %d files (SkillOptions.MaxFiles)", opts.MaxFiles)
		}
		data, err := readBounded(fsys, p, opts.MaxFileBytes)
		if err != nil {
			return err
		}
		if total += int64(len(data)); total > opts.MaxSkillBytes {
			return fmt.Errorf("the files are over %d bytes together (SkillOptions.MaxSkillBytes)", opts.MaxSkillBytes)
		}
		files[p] = data
		return nil
	})
	if err != nil {
		return nil, err
	}
	if _, ok := files["SKILL.md"]; !ok {
		return nil, errors.New("no SKILL.md at the skill's root")
	}
	return files, nil
}

// readBounded reads the file p of fsys, refusing one over limit bytes.
func readBounded(fsys fs.FS, p string, limit int64) ([]byte, error) {
	f, err := fsys.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", p, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is over %d bytes (SkillOptions.MaxFileBytes)", p, limit)
	}
	return data, nil
}

// serveSkill registers a checked skill: its entry and its files'
// resources.
func (s *Server) serveSkill(name string, fm map[string]any, files map[string][]byte, sk Skill) {
	if pr := requirementProblems(sk.Scopes, sk.Roles); pr != nil {
		s.problem(fmt.Errorf("skill %q: %s", name, strings.Join(pr, "; ")))
		return
	}
	groups := sk.Groups
	if groups == nil {
		groups = []string{}
	}
	if err := groupProblem("skill", name, groups); err != nil {
		s.problem(err)
		return
	}
	e := &skillEntry{requirement: requirement{sk.Scopes, sk.Roles}, name: name,
		uri: skillURI(name, "SKILL.md"), groups: groups}
	for _, p := range slices.Sorted(maps.Keys(files)) {
		sum := sha256.Sum256(files[p])
		e.files = append(e.files, skillFile{path: p, uri: skillURI(name, p), mime: skillMIME(p, files[p]),
			digest: "sha256:" + hex.EncodeToString(sum[:]), data: files[p]})
		f := &e.files[len(e.files)-1]
		f.text = utf8.Valid(f.data) && (strings.HasPrefix(f.mime, "text/") || f.mime == "application/json" || f.mime == "application/yaml")
	}
	e.json = e.appendJSON(nil, fm)
	s.mu.Lock()
	if _, clash := s.skills.reg.get(e.uri); clash {
		s.mu.Unlock()
		s.problem(fmt.Errorf("skill %q: another skill has that name (remove it first with RemoveSkills)", name))
		return
	}
	s.skills.reg.add(e)
	s.mu.Unlock()
	desc, _ := fm["description"].(string)
	for i := range e.files {
		f := &e.files[i]
		res := Resource{URI: f.uri, Name: name + "/" + f.path, MIMEType: f.mime, Size: int64(len(f.data)),
			Scopes: sk.Scopes, Roles: sk.Roles, Groups: groups}
		if f.path == "SKILL.md" {
			res.Name, res.Description = name, desc
		}
		s.AddResource(res, f.read)
	}
}

// read is a skill file's resource handler.
func (f *skillFile) read(context.Context, *ReadResourceRequest) ([]ResourceContents, error) {
	c := ResourceContents{URI: f.uri, MIMEType: f.mime}
	if f.text {
		c.Text = string(f.data)
	} else {
		c.Blob = f.data
	}
	return []ResourceContents{c}, nil
}

// appendJSON appends the skill's skills/list entry.
func (e *skillEntry) appendJSON(b []byte, fm map[string]any) []byte {
	b = append(b, `{"uri":`...)
	b = jsontext.AppendString(b, e.uri)
	b = append(b, `,"frontmatter":`...)
	b, _ = marshalInto(b, fm) // strings and maps of strings: it cannot fail
	b = append(b, `,"resources":[`...)
	for i, f := range e.files {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"uri":`...)
		b = jsontext.AppendString(b, f.uri)
		b = append(b, `,"digest":"`...)
		b = append(b, f.digest...)
		b = append(b, `","size":`...)
		b = fmt.Appendf(b, "%d}", len(f.data))
	}
	return append(b, "]}"...)
}

// RemoveSkills stops serving the named skills and their files.
func (s *Server) RemoveSkills(names ...string) {
	if s.skills == nil {
		return
	}
	var uris []string
	s.mu.Lock()
	for _, name := range names {
		e, ok := s.skills.reg.get(skillURI(name, "SKILL.md"))
		if !ok {
			continue
		}
		s.skills.reg.remove(e.uri)
		for _, f := range e.files {
			uris = append(uris, f.uri)
		}
	}
	s.mu.Unlock()
	if len(uris) > 0 {
		s.RemoveResources(uris...)
	}
}

// skillMIME returns the MIME type a skill's file is served with, from
// its extension (a fixed table, so that it does not depend on the
// machine) and, failing that, whether it is text.
func skillMIME(p string, data []byte) string {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown":
		return "text/markdown"
	case ".txt":
		return "text/plain"
	case ".py":
		return "text/x-python"
	case ".sh":
		return "text/x-shellscript"
	case ".js", ".mjs":
		return "text/javascript"
	case ".go":
		return "text/x-go"
	case ".html", ".htm":
		return "text/html"
	case ".css":
		return "text/css"
	case ".csv":
		return "text/csv"
	case ".json":
		return "application/json"
	case ".yaml", ".yml":
		return "application/yaml"
	case ".png":
		return "image/png"
	case ".jpg", ".jpeg":
		return "image/jpeg"
	case ".gif":
		return "image/gif"
	case ".svg":
		return "image/svg+xml"
	case ".pdf":
		return "application/pdf"
	}
	if utf8.Valid(data) {
		return "text/plain"
	}
	return "application/octet-stream"
}
