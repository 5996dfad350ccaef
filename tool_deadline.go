package ferry

import (
	"context"
	"time"
)

// This file holds a tool's own deadline ([Tool.Timeout]): resolved once,
// when the tool is registered, into [ToolInfo.Timeout], which the call's
// context ([Server.callContext]) and the answer to a call past it read.

// toolTimeout resolves a tool's deadline: its own when set, the server's
// otherwise; zero means none.
func (s *Server) toolTimeout(own time.Duration) time.Duration {
	switch {
	case own > 0:
		return own
	case own < 0:
		return 0
	}
	return max(s.timeout, 0)
}

// callTimeout is the deadline of the call ctx belongs to: its tool's, or
// the server's when ctx is not a call's.
func (s *Server) callTimeout(ctx context.Context) time.Duration {
	if r := requestFrom(ctx); r != nil && r.target.tool != nil {
		return r.target.tool.info.Timeout
	}
	return s.timeout
}
