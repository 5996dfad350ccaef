// Package workbenchtest tests the demo's workbench in a real browser:
// headless Chromium, driven over the DevTools protocol by chromedp, opens
// the page the demo serves at /ui/, connects with an API key, lists the
// catalog, sends forms and pages tables, while a client of the official Go
// SDK calls the same server to check what the page shows. A second, small
// server whose texts hold markup checks that the page shows them as text
// and that its Content-Security-Policy holds, and a rebound Host and
// another origin's script check that the workbench refuses what /mcp
// refuses. One more run uses the keyboard alone.
//
// Each step leaves a screenshot, NN-step.png, in $FERRY_ARTIFACTS/workbench
// (an absolute path), by default in .ci/artifacts/workbench of the
// repository. With -update-screenshot the table step's also replaces the
// README's, docs/workbench.png. Chromium is Debian's (/usr/bin/chromium)
// or $CHROMIUM; without it the tests are skipped, except with CI set,
// where they fail.
//
// It is a module of its own so that chromedp and the Go SDK stay out of
// the ferry command's build; it has no code, only tests.
package workbenchtest
