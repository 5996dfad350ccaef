package main

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
)

// maxReceived bounds the bytes one command reads from an HTTP server, all
// answers and pages together: far more than any server's listing, far
// less than the client's bound on one message times its bound on pages.
const maxReceived = 64 << 20

// errOverBudget is the error of a read past maxReceived.
var errOverBudget = fmt.Errorf("the server sent more than %d MiB", maxReceived>>20)

// budgetTransport is an http.RoundTripper whose response bodies draw on
// one shared budget of bytes; a read past it fails with errOverBudget.
type budgetTransport struct {
	next http.RoundTripper
	left atomic.Int64 // bytes still allowed
}

func newBudgetTransport(next http.RoundTripper, budget int64) *budgetTransport {
	b := &budgetTransport{next: next}
	b.left.Store(budget)
	return b
}

func (b *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &budgetBody{ReadCloser: resp.Body, left: &b.left}
	return resp, nil
}

// budgetBody is a response body counted against its transport's budget.
type budgetBody struct {
	io.ReadCloser
	left *atomic.Int64
}

func (r *budgetBody) Read(p []byte) (int, error) {
	if r.left.Load() <= 0 {
		return 0, errOverBudget
	}
	n, err := r.ReadCloser.Read(p)
	if r.left.Add(-int64(n)) < 0 {
		return n, errOverBudget
	}
	return n, err
}
