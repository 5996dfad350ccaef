package workbenchtest

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/chromedp"
)

// controlRoles are the roles of what a user operates: each needs a name
// a screen reader can say (its label, its text or aria-label).
var controlRoles = []string{"button", "checkbox", "combobox", "link", "listbox", "radio",
	"searchbox", "slider", "spinbutton", "switch", "tab", "textbox"}

// unnamedControls returns the outer HTML of every control in Chromium's
// accessibility tree of the page that has no accessible name.
func (b *browser) unnamedControls() []string {
	b.t.Helper()
	var out []string
	b.run(chromedp.ActionFunc(func(ctx context.Context) error {
		nodes, err := accessibility.GetFullAXTree().Do(ctx)
		if err != nil {
			return err
		}
		for _, n := range nodes {
			if n.Ignored || n.Role == nil || !slices.Contains(controlRoles, axString(n.Role)) || axString(n.Name) != "" {
				continue
			}
			html := "(role " + axString(n.Role) + ", no DOM node)"
			if n.BackendDOMNodeID != 0 {
				if h, err := dom.GetOuterHTML().WithBackendNodeID(n.BackendDOMNodeID).Do(ctx); err == nil {
					html = h[:min(len(h), 200)]
				}
			}
			out = append(out, html)
		}
		return nil
	}))
	return out
}

// axString is an accessibility value's string, or "".
func axString(v *accessibility.Value) string {
	if v == nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(v.Value, &s)
	return s
}
