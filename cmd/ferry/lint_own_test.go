package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// What Ferry generates and ships passes ferry lint: ferry serve with
// writes and no config (no descriptions of its own), the demo, and the
// examples that serve stdio.
func TestFerryPassesItsOwnLint(t *testing.T) {
	t.Run("serve -writes", func(t *testing.T) {
		d := sqliteTestDB(t)
		d.shop(t)
		s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-writes"})
		if code, stdout, stderr := runFerry(t, []string{"lint", "-quiet", s.url}); code != exitOK {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("demo", func(t *testing.T) {
		base, key := startDemo(t)
		if code, stdout, stderr := runFerry(t, []string{"lint", "-quiet", base + "/mcp"}, "FERRY_TOKEN", key); code != exitOK {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})
	t.Run("examples", func(t *testing.T) {
		dir := t.TempDir()
		build := exec.CommandContext(t.Context(), "go", "build", "-o", dir+string(filepath.Separator),
			"../../examples/typed", "../../examples/methods", "../../examples/prompts", "../../examples/handwritten", "../../examples/entities")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building the examples: %v\n%s", err, out)
		}
		for _, cmd := range [][]string{{"typed"}, {"methods"}, {"prompts"}, {"handwritten"}, {"entities", "-stdio", "-db", filepath.Join(dir, "shop.db")}} {
			cmd[0] = filepath.Join(dir, cmd[0])
			code, stdout, stderr := runFerry(t, append([]string{"lint", "-quiet", "--"}, cmd...))
			if code != exitOK || !strings.Contains(stderr, "no problems") {
				t.Errorf("%s: exit %d:\n%s%s", filepath.Base(cmd[0]), code, stdout, stderr)
			}
		}
	})
	t.Run("examples/orders", func(t *testing.T) {
		dir := t.TempDir()
		bin := filepath.Join(dir, "orders")
		build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../examples/orders")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building examples/orders: %v\n%s", err, out)
		}
		code, stdout, stderr := runFerry(t, []string{"lint", "-quiet", "--", "env", "ORDERS_KEYS=k-ada=ada:write", "ORDERS_AS=k-ada",
			bin, "-stdio", "-seed", "-db", filepath.Join(dir, "orders.db")})
		if code != exitOK || !strings.Contains(stderr, "no problems") {
			t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
		}
	})
}
