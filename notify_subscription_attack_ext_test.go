package ferry_test

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ferry-mcp/ferry"
)

// A caller may subscribe to any URI, but an update of a resource it may
// not see must not reach it: an unknown URI is never updated, so hearing
// of file:///payslips would tell the caller the hidden resource exists,
// and when it changes. An open resource's update and that of a URI the
// server does not know still arrive, as before.
func TestResourceUpdatesOfHiddenResourcesDoNotReachSubscribers(t *testing.T) {
	srv := ferry.NewServer("s", "1", &ferry.ServerOptions{Logger: discard})
	read := func(_ context.Context, req *ferry.ReadResourceRequest) ([]ferry.ResourceContents, error) {
		return []ferry.ResourceContents{{URI: req.URI, Text: "x"}}, nil
	}
	srv.AddResource(ferry.Resource{URI: "file:///readme", Name: "readme"}, read)
	srv.AddResource(ferry.Resource{URI: "file:///payslips", Name: "payslips", Scopes: []string{"hr"}}, read)
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "vault://{id}", Name: "vault", Roles: []string{"admin"}}, read)
	// An open template matching the hidden resource's URI must not carry
	// its updates to everyone: the resource's requirements decide.
	srv.AddResourceTemplate(ferry.ResourceTemplate{URITemplate: "file:///{name}", Name: "files"}, read)
	uris := []string{"file:///payslips", "vault://gold", "file:///readme", "file:///elsewhere"}
	subscribe := map[string]func(send func(string), next func() string){
		"resources/subscribe": func(send func(string), next func() string) {
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
			next()
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for _, uri := range uris {
				send(`{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"` + uri + `"}}`)
				if l := next(); !strings.Contains(l, `"result":{}`) {
					t.Fatalf("subscribe %s: %s", uri, l)
				}
			}
		},
		"subscriptions/listen": func(send func(string), next func() string) {
			send(strings.TrimSuffix(modernRequest(7, "subscriptions/listen", `"notifications":{"resourceSubscriptions":["`+strings.Join(uris, `","`)+`"]}`), "\n"))
			if l := next(); !strings.Contains(l, "acknowledged") {
				t.Fatalf("listen: %s", l)
			}
		},
	}
	for how, subscribe := range subscribe {
		for _, who := range []struct {
			name string
			p    *ferry.Principal
			sees bool
		}{{"anonymous", nil, false}, {"bob", &ferry.Principal{Subject: "bob", Scopes: []string{"sales"}}, false},
			{"ann", &ferry.Principal{Subject: "ann", Scopes: []string{"hr"}, Roles: []string{"admin"}}, true}} {
			t.Run(how+"/"+who.name, func(t *testing.T) {
				inR, inW := io.Pipe()
				outR, outW := io.Pipe()
				done := make(chan error, 1)
				ctx, cancel := context.WithCancel(ferry.WithPrincipal(t.Context(), who.p))
				go func() { done <- srv.Run(ctx, &ferry.IOTransport{Reader: inR, Writer: outW}) }()
				t.Cleanup(func() {
					cancel()
					_ = inW.Close()
					_ = outR.Close()
					if err := <-done; err != nil && ctx.Err() == nil {
						t.Errorf("Run: %v", err)
					}
				})
				lines := make(chan string, 16)
				go func() {
					sc := bufio.NewScanner(outR)
					for sc.Scan() {
						lines <- sc.Text()
					}
					close(lines)
				}()
				next := func() string {
					select {
					case l := <-lines:
						return l
					case <-time.After(5 * time.Second):
						t.Fatal("no line from the server")
						return ""
					}
				}
				send := func(l string) { _, _ = io.WriteString(inW, l+"\n") }
				subscribe(send, next)
				srv.NotifyResourceUpdated("file:///payslips")
				srv.NotifyResourceUpdated("vault://gold")
				srv.NotifyResourceUpdated("file:///readme")
				srv.NotifyResourceUpdated("file:///elsewhere")
				var got []string
				for len(got) == 0 || !strings.Contains(got[len(got)-1], "file:///elsewhere") {
					got = append(got, next())
				}
				heard := strings.Join(got, "\n")
				for _, hidden := range []string{"file:///payslips", "vault://gold"} {
					if strings.Contains(heard, hidden) != who.sees {
						t.Errorf("%s heard of %s: %v, want %v\n%s", who.name, hidden, !who.sees, who.sees, heard)
					}
				}
				if !strings.Contains(heard, `"uri":"file:///readme"`) {
					t.Errorf("the open resource's update did not arrive:\n%s", heard)
				}
			})
		}
	}
}
