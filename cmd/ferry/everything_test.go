package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The commands work against conformance/everything, Ferry's fixture for
// the official conformance suite, built and run as a stdio server: a call
// in each era, and lint finding the $ref of its JSON Schema 2020-12 tool,
// which some clients reject.
func TestEverythingServer(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "everything")
	build := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "../../conformance/everything")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building conformance/everything: %v\n%s", err, out)
	}
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		code, stdout, stderr := runFerry(t, []string{"call", "-protocol", protocol, "add", `{"a": 2, "b": 3}`, "--", bin})
		if code != exitOK || !strings.Contains(stdout, `"sum": 5`) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", protocol, code, stdout, stderr)
		}
	}
	// A tool that asks the user cannot be served to ferry, which cannot
	// answer: call says so and exits 1 (the server is fine).
	code, _, stderr := runFerry(t, []string{"call", "-protocol", "2026-07-28", "test_elicitation", `{"message": "Who?"}`, "--", bin})
	if code != exitFailed || !strings.Contains(stderr, "ferry cannot answer a tool's questions") {
		t.Errorf("an eliciting tool: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ := runFerry(t, []string{"lint", "-quiet", "--", bin})
	want := "tool json_schema_2020_12_tool: input schema: $ref at address, which some clients reject: inline the schema [schema-unportable]"
	if code != exitFailed || !strings.Contains(stdout, want+"\n") {
		t.Errorf("lint: exit %d, want %d and the line %q in:\n%s", code, exitFailed, want, stdout)
	}
}
