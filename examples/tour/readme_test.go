package main

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// Every Go block of the repository's README is quoted from this
// program, between a "// readme:NAME" line and a "// readme:end" line, so
// the README's code compiles and is run by this package's tests.
func TestREADMEQuotesTheTour(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]string{}
	for _, m := range regexp.MustCompile(`(?s)// readme:(\w+)\n(.*?)\n// readme:end\n`).FindAllSubmatch(src, -1) {
		regions[string(m[1])] = strings.TrimSpace(string(m[2]))
	}
	if len(regions) == 0 {
		t.Fatal("main.go has no readme: regions")
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllSubmatch(readme, -1)
	if len(blocks) == 0 {
		t.Fatal("the README has no Go blocks")
	}
	used := map[string]bool{}
	for _, b := range blocks {
		block := strings.TrimSpace(string(b[1]))
		found := false
		for name, r := range regions {
			if r == block {
				found, used[name] = true, true
			}
		}
		if !found {
			first, _, _ := strings.Cut(block, "\n")
			t.Errorf("the README's Go block starting %q is not a readme: region of examples/tour/main.go; copy it from there", first)
		}
	}
	for name := range regions {
		if !used[name] {
			t.Errorf("region readme:%s of main.go is not in the README", name)
		}
	}
}
