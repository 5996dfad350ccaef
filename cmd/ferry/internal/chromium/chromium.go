// Package chromium finds the Chromium binary the browser tests drive
// (the demo's MCP App, the workbench).
package chromium

import (
	"os"
	"os/exec"
	"testing"
)

// Path returns the path of the Chromium binary: $CHROMIUM, or Debian's.
// Without one the test is skipped, but not in CI (CI set), where .ci/run
// installs it: there the test fails.
func Path(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("CHROMIUM"), "/usr/bin/chromium", "/usr/bin/chromium-browser"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium: install Debian's chromium package (apt-get install -y chromium) or set CHROMIUM")
	}
	t.Skip("no Chromium (apt-get install -y chromium, or set CHROMIUM)")
	return ""
}
