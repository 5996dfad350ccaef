package ferry_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
	"github.com/ferry-mcp/ferry/internal/wiretest"
)

// skillMD is the SKILL.md of the test skill.
const skillMD = "---\nname: invoices\ndescription: Files and checks invoices.\nmetadata:\n  owner: billing\n  version: \"2\"\n---\n# Invoices\nRead references/RULES.md first.\n"

// invoiceSkill is a skill directory: SKILL.md, a reference and a script.
func invoiceSkill() fstest.MapFS {
	return fstest.MapFS{
		"SKILL.md":            {Data: []byte(skillMD)},
		"references/RULES.md": {Data: []byte("# Rules\nNo invoice without a PO.\n")},
		"scripts/check.py":    {Data: []byte("print('ok')\n")},
		".hidden":             {Data: []byte("left out")},
	}
}

// skillServer serves the invoice skill, for callers with the billing role
// when guarded, over HTTP with asCaller.
func skillServer(t *testing.T, roles ...string) (*ferry.Server, http.Handler) {
	t.Helper()
	srv := ferry.NewServer("skills", "1", &ferry.ServerOptions{Skills: &ferry.SkillOptions{}})
	srv.AddSkill(ferry.Skill{FS: invoiceSkill(), Roles: roles})
	if err := srv.Check(); err != nil {
		t.Fatal(err)
	}
	return srv, asCaller(ferry.NewHTTPHandler(srv, nil))
}

// skillCall posts a 2026-07-28 request that declares no extension, with
// the header pairs given, and returns its result or error.
func skillCall(t *testing.T, h http.Handler, method, params string, header ...string) answer {
	t.Helper()
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}`
	if params != "" {
		meta += "," + params
	}
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + meta + `}}`
	name := ""
	if method == "resources/read" {
		var p struct{ URI string }
		_ = json.Unmarshal([]byte("{"+params+"}"), &p)
		name = p.URI
	}
	a := wiretest.Serve(t, h, body, append(wiretest.Modern(method, name), header...)...)
	var got answer
	if err := json.Unmarshal([]byte(a.Body), &got); err != nil {
		t.Fatalf("%s: %d %s: %v", method, a.Status, a.Body, err)
	}
	return got
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

func TestSkillsListAndGet(t *testing.T) {
	_, h := skillServer(t)
	a := skillCall(t, h, "skills/list", "")
	if a.Error != nil {
		t.Fatalf("skills/list: error %d", a.Error.Code)
	}
	var skills []struct {
		URI         string         `json:"uri"`
		Frontmatter map[string]any `json:"frontmatter"`
		Resources   []struct {
			URI    string `json:"uri"`
			Digest string `json:"digest"`
			Size   int    `json:"size"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(a.Result["skills"], &skills); err != nil || len(skills) != 1 {
		t.Fatalf("skills = %s (%v), want one", a.Result["skills"], err)
	}
	sk := skills[0]
	wantFM := map[string]any{"name": "invoices", "description": "Files and checks invoices.",
		"metadata": map[string]any{"owner": "billing", "version": "2"}}
	if sk.URI != "skill://invoices/SKILL.md" || !cmp.Equal(sk.Frontmatter, wantFM) {
		t.Errorf("entry = %s %v, want skill://invoices/SKILL.md %v", sk.URI, sk.Frontmatter, wantFM)
	}
	var uris []string
	for _, r := range sk.Resources {
		uris = append(uris, r.URI)
		if r.URI == sk.URI && (r.Digest != digest(skillMD) || r.Size != len(skillMD)) {
			t.Errorf("SKILL.md manifest = %s %d, want %s %d", r.Digest, r.Size, digest(skillMD), len(skillMD))
		}
	}
	want := []string{"skill://invoices/SKILL.md", "skill://invoices/references/RULES.md", "skill://invoices/scripts/check.py"}
	if !cmp.Equal(uris, want) {
		t.Errorf("manifest = %v, want %v (the dot file left out)", uris, want)
	}
	if str(a.Result, "cacheScope") != "public" || a.Result["ttlMs"] == nil {
		t.Errorf("skills/list caching = %s %s, want ttlMs and public", a.Result["ttlMs"], a.Result["cacheScope"])
	}

	g := skillCall(t, h, "skills/get", `"uri":"skill://invoices/SKILL.md"`)
	if g.Error != nil || !strings.Contains(string(g.Result["skill"]), `"uri":"skill://invoices/SKILL.md"`) || g.Result["nextCursor"] != nil {
		t.Errorf("skills/get = %v %s", g.Error, g.Result["skill"])
	}
	for _, uri := range []string{"skill://nobody/SKILL.md", "skill://invoices/references/RULES.md", ""} {
		if g := skillCall(t, h, "skills/get", `"uri":"`+uri+`"`); g.Error == nil || g.Error.Code != int(ferry.CodeInvalidParams) {
			t.Errorf("skills/get %q = %+v, want -32602", uri, g)
		}
	}
}

func TestSkillFilesAreResources(t *testing.T) {
	_, h := skillServer(t)
	r := skillCall(t, h, "resources/read", `"uri":"skill://invoices/references/RULES.md"`)
	var contents []struct{ URI, MIMEType, Text string }
	if err := json.Unmarshal(r.Result["contents"], &contents); err != nil || len(contents) != 1 ||
		contents[0].Text != "# Rules\nNo invoice without a PO.\n" {
		t.Fatalf("resources/read = %s %v", r.Result["contents"], r.Error)
	}
	l := skillCall(t, h, "resources/list", "")
	if !strings.Contains(string(l.Result["resources"]), `{"uri":"skill://invoices/SKILL.md","name":"invoices","description":"Files and checks invoices.","mimeType":"text/markdown"`) {
		t.Errorf("resources/list = %s, want SKILL.md named and described by its front matter", l.Result["resources"])
	}
}

func TestSkillDirectoryRead(t *testing.T) {
	_, h := skillServer(t)
	tests := []struct {
		uri, want string
	}{
		{"skill://invoices", `[{"uri":"skill://invoices/SKILL.md","name":"SKILL.md","mimeType":"text/markdown","size":` + strconv.Itoa(len(skillMD)) + `},` +
			`{"uri":"skill://invoices/references","name":"references","mimeType":"inode/directory"},` +
			`{"uri":"skill://invoices/scripts","name":"scripts","mimeType":"inode/directory"}]`},
		{"skill://invoices/", ""},
		{"skill://invoices/scripts", `[{"uri":"skill://invoices/scripts/check.py","name":"check.py","mimeType":"text/x-python","size":12}]`},
	}
	tests[1].want = tests[0].want
	for _, tt := range tests {
		a := skillCall(t, h, "resources/directory/read", `"uri":"`+tt.uri+`"`)
		if a.Error != nil || string(a.Result["resources"]) != tt.want {
			t.Errorf("directory read %s = %s %+v, want %s", tt.uri, a.Result["resources"], a.Error, tt.want)
		}
	}
	for _, uri := range []string{"skill://invoices/SKILL.md", "skill://invoices/nothing", "skill://other", "file:///etc", ""} {
		if a := skillCall(t, h, "resources/directory/read", `"uri":"`+uri+`"`); a.Error == nil || a.Error.Code != int(ferry.CodeInvalidParams) {
			t.Errorf("directory read %q = %+v, want -32602", uri, a)
		}
	}
}

// A caller who may not use a skill finds it nowhere: not in skills/list
// or resources/list, not by skills/get, its files and directories not
// found.
func TestSkillHiddenFromCallerWithoutRole(t *testing.T) {
	_, h := skillServer(t, "billing")
	for _, who := range [][]string{nil, {"X-User", "eve", "X-Roles", "sales"}} {
		if a := skillCall(t, h, "skills/list", "", who...); string(a.Result["skills"]) != "[]" {
			t.Errorf("%v: skills/list = %s, want none", who, a.Result["skills"])
		}
		if a := skillCall(t, h, "resources/list", "", who...); strings.Contains(string(a.Result["resources"]), "skill://") {
			t.Errorf("%v: resources/list = %s, want no skill file", who, a.Result["resources"])
		}
		if a := skillCall(t, h, "skills/get", `"uri":"skill://invoices/SKILL.md"`, who...); a.Error == nil {
			t.Errorf("%v: skills/get answered %s", who, a.Result["skill"])
		}
		if a := skillCall(t, h, "resources/read", `"uri":"skill://invoices/SKILL.md"`, who...); a.Error == nil {
			t.Errorf("%v: resources/read answered %s", who, a.Result["contents"])
		}
		if a := skillCall(t, h, "resources/directory/read", `"uri":"skill://invoices"`, who...); a.Error == nil {
			t.Errorf("%v: directory read answered %s", who, a.Result["resources"])
		}
	}
	bob := []string{"X-User", "bob", "X-Roles", "billing"}
	if a := skillCall(t, h, "skills/list", "", bob...); !strings.Contains(string(a.Result["skills"]), "skill://invoices/SKILL.md") ||
		str(a.Result, "cacheScope") != "private" {
		t.Errorf("billing: skills/list = %s %s, want the skill, private", a.Result["skills"], a.Result["cacheScope"])
	}
}

// Without ServerOptions.Skills the methods do not exist and nothing is
// declared.
func TestSkillsOffByDefault(t *testing.T) {
	srv := ferry.NewServer("plain", "1", nil)
	srv.AddSkill(ferry.Skill{FS: invoiceSkill()})
	if err := srv.Check(); err == nil || !strings.Contains(err.Error(), "ServerOptions.Skills") {
		t.Errorf("AddSkill without the extension: Check = %v, want it named", err)
	}
	srv = ferry.NewServer("plain", "1", nil)
	h := ferry.NewHTTPHandler(srv, nil)
	for _, m := range []string{"skills/list", "skills/get", "resources/directory/read"} {
		if a := skillCall(t, h, m, ""); a.Error == nil || a.Error.Code != int(ferry.CodeMethodNotFound) {
			t.Errorf("%s on a server without skills = %+v, want -32601", m, a)
		}
	}
	if srv.Serves(ferry.ExtensionSkills) {
		t.Error("Serves(ExtensionSkills) on a server without skills")
	}
}

func TestSkillStartupChecks(t *testing.T) {
	big := strings.Repeat("x", 2000)
	tests := []struct {
		name string
		fsys fstest.MapFS
		opts ferry.SkillOptions
		want string
	}{
		{"no SKILL.md", fstest.MapFS{"README.md": {Data: []byte("hi")}}, ferry.SkillOptions{}, "no SKILL.md"},
		{"no front matter", fstest.MapFS{"SKILL.md": {Data: []byte("# hi\n")}}, ferry.SkillOptions{}, "does not begin with front matter"},
		{"unclosed", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\n")}}, ferry.SkillOptions{}, "no closing"},
		{"no description", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\n---\n")}}, ferry.SkillOptions{}, "no description"},
		{"bad name", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: Bad--Name\ndescription: d\n---\n")}}, ferry.SkillOptions{}, "lowercase"},
		{"number", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\ndescription: d\nversion: 1.0\n---\n")}}, ferry.SkillOptions{}, "line 4"},
		{"file over bound", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n---\n")}, "big.txt": {Data: []byte(big)}},
			ferry.SkillOptions{MaxFileBytes: 1000}, "big.txt is over 1000 bytes"},
		{"skill over bound", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n---\n")}, "a.txt": {Data: []byte(big)}, "b.txt": {Data: []byte(big)}},
			ferry.SkillOptions{MaxSkillBytes: 3000}, "over 3000 bytes together"},
		{"too many files", fstest.MapFS{"SKILL.md": {Data: []byte("---\nname: a\ndescription: d\n---\n")}, "a.txt": {}, "b.txt": {}},
			ferry.SkillOptions{MaxFiles: 2}, "more than 2 files"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Skills: &tt.opts})
			srv.AddSkill(ferry.Skill{FS: tt.fsys})
			if err := srv.Check(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Check = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestAddSkillsChecksNamesAndClashes(t *testing.T) {
	fsys := fstest.MapFS{
		"invoices/SKILL.md": {Data: []byte(skillMD)},
		"misnamed/SKILL.md": {Data: []byte(strings.Replace(skillMD, "name: invoices", "name: other", 1))},
		"empty/README.md":   {Data: []byte("no skill here")},
	}
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Skills: &ferry.SkillOptions{}})
	srv.AddSkills(fsys, ferry.Skill{})
	srv.AddSkill(ferry.Skill{FS: invoiceSkill()})
	err := srv.Check()
	for _, want := range []string{`skill misnamed: its SKILL.md names it "other"`, "skill empty: no SKILL.md", `skill "invoices": another skill has that name`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Check = %v, want %q", err, want)
		}
	}
	srv, h := skillServer(t)
	srv.RemoveSkills("invoices")
	if a := skillCall(t, h, "skills/list", ""); string(a.Result["skills"]) != "[]" {
		t.Errorf("after RemoveSkills: skills/list = %s", a.Result["skills"])
	}
	if a := skillCall(t, h, "resources/read", `"uri":"skill://invoices/SKILL.md"`); a.Error == nil {
		t.Errorf("after RemoveSkills: SKILL.md still read")
	}
}

// The extension asks nothing of the client: a legacy client that did
// not declare it lists skills too, and the server declares directoryRead.
func TestSkillsLegacyUndeclared(t *testing.T) {
	srv, _ := skillServer(t)
	c := ferrytest.NewClient(t, srv, &ferrytest.Options{Protocol: ferry.Version20251125})
	if caps := string(c.Raw().ServerInfo().Capabilities); !strings.Contains(caps, `"io.modelcontextprotocol/skills":{"directoryRead":true}`) {
		t.Errorf("capabilities = %s, want the skills extension with directoryRead", caps)
	}
	var got map[string]json.RawMessage
	if err := c.Raw().Call(t.Context(), "skills/list", map[string]any{}, &got); err != nil ||
		!strings.Contains(string(got["skills"]), "skill://invoices/SKILL.md") || got["ttlMs"] != nil {
		t.Errorf("legacy skills/list = %v %v, want the skill and no caching members", got, err)
	}
}
