// Package locked holds a type whose methods are tools and which holds a
// mutex, so that code generated for it must not copy it.
package locked

import (
	"context"
	"sync"
)

// Counter counts calls.
type Counter struct {
	mu sync.Mutex
	n  int
}

// CountIn is the input of count.
type CountIn struct{}

// Count adds one and returns the count.
//
//ferry:idempotent
func (c *Counter) Count(ctx context.Context, in CountIn) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n, nil
}
