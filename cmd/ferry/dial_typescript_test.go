package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tsServer returns the command of testdata/ts_server.cjs, a stdio server
// built with the official TypeScript SDK, run by Node 22 with the SDK that
// tools/npm.sh installs. Without Node or npm it fails under CI and skips
// elsewhere.
func tsServer(t *testing.T) []string {
	t.Helper()
	need := func(script string) string {
		out, err := exec.CommandContext(t.Context(), script).Output()
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s: %v", script, err)
			}
			t.Skipf("%s: %v (CI set makes this a failure)", script, err)
		}
		return strings.TrimSpace(string(out))
	}
	need("../../tools/npm.sh")
	return []string{"--", need("../../tools/node22.sh"), "testdata/ts_server.cjs"}
}

// The client commands work against a server that is not Ferry: the
// TypeScript SDK's, which speaks only the legacy era, so that the default
// falls back from server/discover; lint reports its exact problems.
func TestTypeScriptServer(t *testing.T) {
	target := tsServer(t)
	code, stdout, stderr := runFerry(t, append([]string{"call", "-quiet", "add", `{"a": 2, "b": 3}`}, target...))
	if code != exitOK || !strings.Contains(stdout, `"text": "5"`) {
		t.Errorf("call add: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runFerry(t, append([]string{"call", "-quiet", "fail", `{"why": "x"}`}, target...))
	if code != exitFailed || !strings.Contains(stdout, `"isError": true`) {
		t.Errorf("call fail: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = runFerry(t, append([]string{"read", "-quiet", "notes://today"}, target...))
	if code != exitOK || !strings.Contains(stdout, `"text": "buy milk"`) {
		t.Errorf("read: exit %d, stdout %q", code, stdout)
	}
	code, stdout, _ = runFerry(t, append([]string{"lint", "-quiet"}, target...))
	want := []string{
		"tool fail: description is 5 characters; say what it does and when to use it in at least 20 [description-short]",
		"tool fail: has no title (title or annotations.title) for clients to show [title-missing]",
		"tool fail: annotations leave readOnlyHint, destructiveHint, idempotentHint, openWorldHint unset; clients then assume the worst [hints-missing]",
		"tool fail: input properties why have no description [property-description-missing]",
		"prompt greet: has no title for clients to show [title-missing]",
		"prompt greet: arguments name have no description [argument-description-missing]",
		"resource notes://today: has no mimeType; clients cannot tell how to show its contents [mimetype-missing]",
	}
	if code != exitFailed {
		t.Errorf("lint: exit %d, want %d", code, exitFailed)
	}
	if diff := cmp.Diff(want, lines(stdout)); diff != "" {
		t.Errorf("lint (-want +got):\n%s", diff)
	}
}
