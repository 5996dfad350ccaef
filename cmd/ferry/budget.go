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

// receiveBudget is the budget dial gives each command: maxReceived, lower
// in tests.
var receiveBudget int64 = maxReceived

// overBudgetError is the error of a read past a transport's budget.
type overBudgetError struct{ budget int64 }

func (e *overBudgetError) Error() string {
	return fmt.Sprintf("the server sent more than %d MiB", e.budget>>20)
}

// budgetTransport is an http.RoundTripper whose response bodies draw on
// one shared budget of bytes; a read past it fails with an
// *overBudgetError.
type budgetTransport struct {
	next http.RoundTripper
	over *overBudgetError
	left atomic.Int64 // bytes still allowed
}

func newBudgetTransport(next http.RoundTripper, budget int64) *budgetTransport {
	b := &budgetTransport{next: next, over: &overBudgetError{budget: budget}}
	b.left.Store(budget)
	return b
}

func (b *budgetTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := b.next.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &budgetBody{ReadCloser: resp.Body, t: b}
	return resp, nil
}

// budgetBody is a response body counted against its transport's budget.
type budgetBody struct {
	io.ReadCloser
	t *budgetTransport
}

func (r *budgetBody) Read(p []byte) (int, error) {
	if r.t.left.Load() <= 0 {
		return 0, r.t.over
	}
	n, err := r.ReadCloser.Read(p)
	if r.t.left.Add(-int64(n)) < 0 {
		return n, r.t.over
	}
	return n, err
}
