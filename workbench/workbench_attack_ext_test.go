package workbench_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestAssetNamesAttack asks for files outside the page's: traversal in
// every spelling, absolute paths, hidden files, the embed directory's
// own name, the page's own tests (in _test, which go:embed leaves
// out). None is served; the page and its files are the only bodies.
func TestAssetNamesAttack(t *testing.T) {
	s := newSite(t, nil)
	for _, target := range []string{
		"/ui/../workbench.go", "/ui/..%2fworkbench.go", "/ui/%2e%2e/workbench.go", "/ui/%2e%2e%2fworkbench.go",
		"/ui/assets/index.html", "/ui/./index.html", "/ui//etc/passwd", "/ui/..", "/ui/.", "/ui/index.html/",
		"/ui/index.html%00.js", "/ui/.hidden", "/ui/a/../../workbench.go", "/ui/..\\workbench.go", "/ui/%5c..%5cworkbench.go",
		"/ui/trace/../config.json", "/ui/config.json/", "/ui/TRACE", "/ui/Index.html", "/ui/_test/", "/ui/_test/refusal.test.js", "/ui/" + strings.Repeat("a/", 2000),
	} {
		t.Run(target[:min(len(target), 40)], func(t *testing.T) {
			// As net/http reads it off the wire, dot segments and all.
			r, err := http.ReadRequest(bufio.NewReader(strings.NewReader("GET " + target + " HTTP/1.1\r\nHost: localhost\r\n\r\n")))
			if err != nil {
				t.Skipf("net/http refuses it before any handler: %v", err)
			}
			w := httptest.NewRecorder()
			s.mux.ServeHTTP(w, r)
			body := w.Body.String()
			switch {
			case strings.Contains(body, "package workbench"), strings.Contains(body, "root:"):
				t.Fatalf("%d: served a file that is not the page's: %.80q", w.Code, body)
			case w.Code == http.StatusOK && !strings.Contains(target, "config.json"):
				t.Errorf("200 for %s: %.80q", target, body)
			case w.Code >= 300 && w.Code < 400 && w.Body.Len() > 0 && !strings.Contains(body, "href="):
				t.Errorf("%d with a body for %s: %.80q", w.Code, target, body)
			case w.Code != http.StatusOK && w.Code != http.StatusNotFound && w.Code != http.StatusMovedPermanently && w.Code != http.StatusTemporaryRedirect:
				t.Errorf("%d for %s", w.Code, target)
			}
			// ServeMux redirects a path with dot segments or "//" to its
			// clean form itself, with no body: the policy is on the
			// answer at the clean path.
			if w.Header().Get("Content-Security-Policy") == "" && w.Code != http.StatusMovedPermanently && w.Code != http.StatusTemporaryRedirect {
				t.Errorf("no policy on the answer to %s", target)
			}
		})
	}
}

// TestMethodsAttack checks that the page and its files answer GET and
// HEAD only: POST, PUT, DELETE, OPTIONS and made-up methods get 405 with
// Allow, and no body of the page. (CONNECT never reaches the handler:
// ServeMux routes it by host.)
func TestMethodsAttack(t *testing.T) {
	s := newSite(t, nil)
	for _, method := range []string{"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"} {
		for _, target := range []string{"/ui/", "/ui/index.html", "/ui/config.json", "/ui/trace", "/ui"} {
			res := s.get(t, method, target, http.Header{"Authorization": {"Bearer " + readerKey}})
			body := readAll(t, res)
			if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
				t.Errorf("%s %s: %d Allow %q", method, target, res.StatusCode, res.Header.Get("Allow"))
			}
			if strings.Contains(body, "<html") || strings.Contains(body, "endpoint") {
				t.Errorf("%s %s: the body is the page's: %.60q", method, target, body)
			}
		}
	}
}
