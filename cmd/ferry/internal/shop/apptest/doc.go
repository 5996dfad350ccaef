// Package apptest tests the shop's MCP App in a real browser: headless
// Chromium, driven over the DevTools protocol by chromedp, loads the app
// inside a minimal host page that speaks the apps extension's bridge as a
// client does. It is a module of its own so that chromedp stays out of
// the ferry command's build; it has no code, only tests.
package apptest
