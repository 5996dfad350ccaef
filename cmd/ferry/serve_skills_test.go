package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// -skills serves a skill per table, written from its tools: a client
// lists them with skills/list and reads each SKILL.md as a resource.
func TestServeSkills(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes", "-skills"})
	if !strings.Contains(s.stderr.String(), "serving 3 skills (skills/list, skill://NAME/SKILL.md): customers, products, visits") {
		t.Errorf("start-up does not say the skills: %s", s.stderr.String())
	}
	r := s.post(t, "skills/list", nil)
	var list struct {
		Skills []struct {
			URI         string            `json:"uri"`
			Frontmatter map[string]string `json:"frontmatter"`
		} `json:"skills"`
	}
	if err := json.Unmarshal(r.Result, &list); err != nil || len(list.Skills) != 3 || list.Skills[1].URI != "skill://products/SKILL.md" {
		t.Fatalf("skills/list = %s %v", r.Result, err)
	}
	read := s.post(t, "resources/read", map[string]any{"uri": "skill://products/SKILL.md"})
	var res struct {
		Contents []struct{ Text string } `json:"contents"`
	}
	if err := json.Unmarshal(read.Result, &res); err != nil || len(res.Contents) != 1 {
		t.Fatalf("resources/read = %s %v", read.Result, err)
	}
	md := res.Contents[0].Text
	at := 0
	for _, want := range []string{"### `list_products` (reads only)", "### `get_product` (reads only)", "### `create_product` (writes, destroys nothing)",
		"### `update_product`", "### `delete_product` (may destroy data)", "1. Look first with `list_products`",
		"Last, and only once the user agreed: `delete_product`"} {
		i := strings.Index(md[at:], want)
		if i < 0 {
			t.Fatalf("products' SKILL.md lacks %q after byte %d:\n%s", want, at, md)
		}
		at += i + len(want)
	}
}

// Without -skills nothing changes: the extension is not declared and
// skills/list does not exist.
func TestServeNoSkillsByDefault(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0"})
	if r := s.post(t, "skills/list", nil); r.Status != 404 {
		t.Errorf("skills/list without -skills = %d %s %+v, want 404 (no such method)", r.Status, r.Result, r.Error)
	}
}

func TestSkillName(t *testing.T) {
	for in, want := range map[string]string{"products": "products", "Order_Lines": "order-lines", "__x__y": "x-y", "日本": "", "a--b": "a-b"} {
		if got := skillName(in); got != want {
			t.Errorf("skillName(%q) = %q, want %q", in, got, want)
		}
	}
}
