package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"
	"time"
)

// The proxy passes a replica's answer on while the request's body is still
// arriving, as it must for a replica that starts its stream before it sees
// the body's end: net/http would otherwise read and close the rest of the
// body as the answer's headers go out, under the feet of the transport
// still copying it to the replica (the client saw its stream cut).
func TestProxyStreamsWhileTheRequestBodyArrives(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rc := http.NewResponseController(w)
		_ = rc.EnableFullDuplex()
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		_ = rc.Flush()
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Errorf("the replica reading the body: %v", err)
		}
		fmt.Fprintf(w, "data: %s\n\n", body)
	}))
	defer backend.Close()
	target, _ := url.Parse(backend.URL)
	transport := http.DefaultTransport.(*http.Transport).Clone()
	defer transport.CloseIdleConnections()
	front := httptest.NewServer(fullDuplex(newProxy([]*url.URL{target}, transport, slog.New(slog.DiscardHandler))))
	defer front.Close()

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	// On failure (no headers within 5s), the client's transport waits on
	// its body read: end it.
	context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, front.URL+"/mcp", pr)
	go func() { _, _ = pw.Write([]byte("first half,")) }()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("the answer's headers before the body's end: %v", err)
	}
	defer resp.Body.Close()
	_, _ = pw.Write([]byte(" second half"))
	pw.Close()
	got, err := io.ReadAll(resp.Body)
	if want := "data: first half, second half\n\n"; err != nil || string(got) != want {
		t.Errorf("answer %q (err %v), want %q", got, err, want)
	}
}
