package main

import (
	"context"
	"strings"
	"testing"
)

// runFerry runs ferry in process with args and returns its exit code and
// what it wrote; the environment is empty unless env names pairs.
func runFerry(t *testing.T, args []string, envPairs ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut strings.Builder
	vars := map[string]string{}
	for i := 0; i+1 < len(envPairs); i += 2 {
		vars[envPairs[i]] = envPairs[i+1]
	}
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return vars[k] }}
	code = run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// Every command answers -h and "ferry help CMD" with its usage on stdout
// and exit 0.
func TestEveryCommandHasHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {"help", c.name}} {
			code, stdout, stderr := runFerry(t, args)
			if code != 0 || stdout == "" || stderr != "" {
				t.Errorf("ferry %q: exit %d, stdout %q, stderr %q; want 0, the usage, nothing", args, code, stdout, stderr)
			}
		}
	}
}

func TestVersion(t *testing.T) {
	code, stdout, _ := runFerry(t, []string{"-version"})
	if code != 0 || !strings.HasPrefix(stdout, "ferry ") {
		t.Errorf("ferry -version: exit %d, %q", code, stdout)
	}
}

// ferry's own help and version: on stdout with exit 0 when asked for, on
// stderr with exit 2 when the command line is wrong; each command's usage
// starts with its own name, however it is asked for.
func TestHelpAndVersionShapes(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"-help"}} {
		code, stdout, stderr := runFerry(t, args)
		if code != exitOK || !strings.HasPrefix(stdout, "usage: ferry <command>") || stderr != "" {
			t.Errorf("ferry %q: exit %d, stdout %.80q, stderr %q", args, code, stdout, stderr)
		}
		for _, c := range commands {
			if !strings.Contains(stdout, "  "+c.name+" ") {
				t.Errorf("ferry %q does not list %s", args, c.name)
			}
		}
	}
	for _, c := range commands {
		for _, args := range [][]string{{c.name, "-h"}, {c.name, "--help"}, {"help", c.name}} {
			if code, stdout, _ := runFerry(t, args); code != exitOK || !strings.HasPrefix(stdout, "usage: ferry "+c.name) {
				t.Errorf("ferry %q: exit %d, stdout %.80q", args, code, stdout)
			}
		}
	}
	for _, args := range [][]string{nil, {"nope"}, {"help", "nope"}} {
		code, stdout, stderr := runFerry(t, args)
		if code != exitUsage || stdout != "" || stderr == "" {
			t.Errorf("ferry %q: exit %d, stdout %.80q, stderr %.80q; want 2 and the problem on stderr", args, code, stdout, stderr)
		}
	}
	for _, args := range [][]string{{"-version"}, {"--version"}, {"version"}} {
		code, stdout, stderr := runFerry(t, args)
		if code != exitOK || !strings.HasPrefix(stdout, "ferry ") || strings.Count(stdout, "\n") != 1 || stderr != "" {
			t.Errorf("ferry %q: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}
