package ferry

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/internal/toolname"
	"github.com/ferry-mcp/ferry/schema"
)

// Check reports every problem with what is registered: tool names that
// break the protocol's rules or repeat, tools without a description,
// schemas that clients reject (a root that is not an object; for
// [Tool.InputSchema] and [Tool.OutputSchema] also descriptions over 1024
// characters, as [schema.PortableJSON] reports them; raw schemas are sent
// as they are) or that do not compile, and problems found while deriving
// typed tools' schemas, every struct tag that cannot apply included. Each problem names the tool. The HTTP
// handler and [Server.Run] run it first and refuse to start on a problem.
func (s *Server) Check() error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return errors.Join(s.problems...)
}

// problem records a start-up problem.
func (s *Server) problem(err error) {
	s.mu.Lock()
	s.problems = append(s.problems, err)
	s.mu.Unlock()
}

// checkTool returns the problems of one tool's name and description; its
// schemas are checked by [Server.compileSchemas].
func checkTool(t *Tool) []error {
	var errs []error
	add := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("tool %q: "+format, append([]any{t.Name}, args...)...))
	}
	if err := toolname.Check(t.Name); err != nil {
		add("%v", err)
	}
	switch n := utf8.RuneCountInString(t.Description); {
	case n == 0:
		add("has no description: say what it does and when to use it")
	case n > schema.MaxDescription:
		add("description is %d characters; clients accept at most %d", n, schema.MaxDescription)
	}
	return errs
}
