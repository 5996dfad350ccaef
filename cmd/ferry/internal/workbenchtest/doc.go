// Package workbenchtest tests the demo's workbench in a real browser:
// headless Chromium, driven over the DevTools protocol by chromedp, opens
// the page the demo serves at /ui/, connects with an API key, lists the
// catalog, sends forms and pages tables, while a client of the official Go
// SDK calls the same server to check what the page shows. It is a module
// of its own so that chromedp and the Go SDK stay out of the ferry
// command's build; it has no code, only tests.
package workbenchtest
