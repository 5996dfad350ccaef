// Package chromium finds the Chromium binary the browser tests drive
// (the demo's MCP App, the workbench).
package chromium

import (
	"os"
	"os/exec"
	"testing"
	"time"
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

// Profile returns a new directory for Chromium's profile, removed after
// the test. Not t.TempDir: Chromium's helper processes may still write
// there for a moment after the browser ended, which would fail the test
// for the cleanup's sake (it did, in CI).
func Profile(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ferry-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for range 50 {
			if os.RemoveAll(dir) == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("could not remove Chromium's profile %s", dir)
	})
	return dir
}
