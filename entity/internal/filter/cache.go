package filter

import (
	"sync"

	"cel.dev/cel-go/common/ast"
)

// cacheSize bounds each generation of the checked-expression cache: at
// most twice as many expressions are kept.
const cacheSize = 128

// checkedCache keeps the checked ASTs of recent expressions, so a model
// paging through a list with one filter has it parsed and checked once.
// It holds two generations: a hit in the old one moves the entry to the
// new one, and a full new generation replaces the old. A checked AST is
// only read once built, so it is shared between goroutines.
type checkedCache struct {
	mu       sync.Mutex // guards cur and old
	cur, old map[string]*ast.AST
}

func (c *checkedCache) get(expr string) (*ast.AST, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if a, ok := c.cur[expr]; ok {
		return a, true
	}
	a, ok := c.old[expr]
	if ok {
		c.putLocked(expr, a)
	}
	return a, ok
}

func (c *checkedCache) put(expr string, a *ast.AST) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(expr, a)
}

func (c *checkedCache) putLocked(expr string, a *ast.AST) {
	if len(c.cur) >= cacheSize {
		c.old, c.cur = c.cur, nil
	}
	if c.cur == nil {
		c.cur = make(map[string]*ast.AST, cacheSize)
	}
	c.cur[expr] = a
}
