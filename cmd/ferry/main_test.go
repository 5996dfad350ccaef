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
