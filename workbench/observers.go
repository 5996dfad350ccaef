package workbench

import (
	"context"

	"github.com/ferry-mcp/ferry"
)

// Join returns an observer that tells each of obs of every request, in
// order (Start in the order given, End in the reverse order, as deferred
// calls run), so that a [Trace] can sit beside a server's other observer.
// Nil observers are left out; Join of one observer is that observer, and
// of none nil.
func Join(obs ...ferry.Observer) ferry.Observer {
	var list joined
	for _, o := range obs {
		if o != nil {
			list = append(list, o)
		}
	}
	switch len(list) {
	case 0:
		return nil
	case 1:
		return list[0]
	}
	return list
}

// joined is the observer [Join] returns.
type joined []ferry.Observer

// Start implements [ferry.Observer].
func (j joined) Start(ctx context.Context, info *ferry.RequestInfo) context.Context {
	for _, o := range j {
		ctx = o.Start(ctx, info)
	}
	return ctx
}

// End implements [ferry.Observer].
func (j joined) End(ctx context.Context, info *ferry.RequestInfo, end ferry.RequestEnd) {
	for i := len(j) - 1; i >= 0; i-- {
		j[i].End(ctx, info, end)
	}
}
