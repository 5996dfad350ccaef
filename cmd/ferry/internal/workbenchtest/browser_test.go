package workbenchtest

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/chromium"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// updateScreenshot makes the test copy its screenshot of the table
// (see readmeShot) over the README's, docs/workbench.png.
var updateScreenshot = flag.Bool("update-screenshot", false, "copy the screenshot of the result table to docs/workbench.png")

// readmeShot is the step whose screenshot the README shows.
const readmeShot = "03-table"

// repoRoot is the repository's root, relative to this module.
const repoRoot = "../../../.."

// browser is one headless Chromium tab and where its screenshots go.
type browser struct {
	t   *testing.T
	ctx context.Context // the tab's
	dir string          // the screenshots' directory
}

// browse starts headless Chromium with a fresh profile, resolving the
// names in resolve to 127.0.0.1 (to send a foreign Host header from the
// browser, as a DNS rebinding attack does), and returns its first tab;
// both end with the test. Before any page's own script runs, every page
// records the img and script elements added to its document in
// window.__added (see watchScript).
func browse(t *testing.T, resolve ...string) *browser {
	t.Helper()
	bin := chromium.Path(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(chromium.Profile(t)),
	}
	if len(resolve) > 0 {
		rules := make([]string, len(resolve))
		for i, name := range resolve {
			rules[i] = "MAP " + name + " 127.0.0.1"
		}
		opts = append(opts, chromedp.Flag("host-resolver-rules", strings.Join(rules, ", ")))
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	b := &browser{t: t, ctx: ctx, dir: artifacts(t)}
	b.run(chromedp.EmulateViewport(1280, 800), chromedp.ActionFunc(func(ctx context.Context) error {
		_, err := page.AddScriptToEvaluateOnNewDocument(watchScript).Do(ctx)
		return err
	}))
	return b
}

// watchScript runs in every page before its own script (the DevTools
// protocol's scripts are not subject to the page's CSP): it records every
// img and script element that gets into the document, however it got
// there, and every CSP violation the page reports.
const watchScript = `(() => {
  window.__added = [];
  window.__violations = [];
  new MutationObserver((records) => {
    for (const r of records) for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      for (const el of [n, ...n.querySelectorAll("img, script")]) {
        if (el.tagName === "IMG" || el.tagName === "SCRIPT") window.__added.push(el.outerHTML.slice(0, 200));
      }
    }
  }).observe(document, {childList: true, subtree: true});
  document.addEventListener("securitypolicyviolation", (e) => {
    window.__violations.push({directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample});
  });
})()`

// artifacts returns the directory of the screenshots:
// $FERRY_ARTIFACTS/workbench, by default .ci/artifacts/workbench in the
// repository, which .ci/run's caller keeps.
func artifacts(t *testing.T) string {
	t.Helper()
	base := os.Getenv("FERRY_ARTIFACTS")
	if base == "" {
		base = filepath.Join(repoRoot, ".ci", "artifacts")
	}
	dir, err := filepath.Abs(filepath.Join(base, "workbench"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("the screenshots' directory: %v", err)
	}
	return dir
}

// run runs actions in the tab, or fails the test.
func (b *browser) run(actions ...chromedp.Action) {
	b.t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		b.shot("failed")
		b.t.Fatal(err)
	}
}

// eval evaluates a JavaScript expression in the page into out (nil to
// drop the value), or fails the test.
func (b *browser) eval(expr string, out any) {
	b.t.Helper()
	b.run(chromedp.Evaluate(expr, out))
}

// shotAt scrolls the element q selects into view, then takes a shot.
func (b *browser) shotAt(name, q string) {
	b.t.Helper()
	b.eval(`(() => { const el = document.querySelector(`+js(q)+`); if (el) el.scrollIntoView({block: "start"}); return true; })()`, nil)
	b.shot(name)
}

// shot saves a screenshot of the window (the page scrolls inside its
// panels) as NAME.png in the screenshots' directory. It does not fail
// the test: a screenshot is evidence, not the check.
func (b *browser) shot(name string) {
	b.t.Helper()
	var png []byte
	if err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot(&png)); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	file := filepath.Join(b.dir, name+".png")
	if err := os.WriteFile(file, png, 0o644); err != nil {
		b.t.Logf("screenshot %s: %v", name, err)
		return
	}
	b.t.Logf("screenshot: %s", file)
	if *updateScreenshot && name == readmeShot {
		if err := os.WriteFile(filepath.Join(repoRoot, "docs", "workbench.png"), png, 0o644); err != nil {
			b.t.Errorf("updating docs/workbench.png: %v", err)
		}
	}
}

// wait evaluates expr, a JavaScript expression that is null, undefined,
// false or "" until the page shows what the test waits for and then its
// value, until it is not, and decodes that value into out (nil to drop
// it). It fails after 30s, saying what, with a screenshot and the page's
// status.
func (b *browser) wait(what, expr string, out any) {
	b.t.Helper()
	if b.poll(expr, out) {
		return
	}
	b.shot("failed")
	var status string
	_ = chromedp.Run(b.ctx, chromedp.Evaluate(`(() => { const s = document.getElementById("status"); return s ? s.dataset.state + ": " + s.textContent : document.title + ": " + document.body.textContent.slice(0, 300); })()`, &status))
	b.t.Fatalf("%s: not within 30s; the page says %q", what, status)
}

// poll is wait that reports whether expr came true within 30s instead
// of failing the test, for a caller that says better what went wrong.
func (b *browser) poll(expr string, out any) bool {
	b.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var raw json.RawMessage
		b.run(chromedp.Evaluate(`(() => { const v = (`+expr+`); return v === undefined || v === false || v === "" ? null : v; })()`, &raw))
		if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
			if out != nil {
				if err := json.Unmarshal(raw, out); err != nil {
					b.t.Fatalf("decoding %s: %v", raw, err)
				}
			}
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// js quotes s as a JavaScript string literal.
func js(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// sel returns a CSS attribute selector part [attr="value"].
func sel(attr, value string) string { return fmt.Sprintf("[%s=%s]", attr, js(value)) }
