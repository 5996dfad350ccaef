package ferry

import (
	"errors"
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry/schema"
	"github.com/ferry-mcp/ferry/toolname"
)

// Check reports every problem with what is registered, joined into one
// error, each naming its tool (or prompt, or resource): tool names that
// break the protocol's rules or repeat, tools without a description,
// schemas that clients reject (a root that is not an object; for
// [Tool.InputSchema] and [Tool.OutputSchema] also descriptions over 1024
// characters, as [schema.PortableJSON] reports them; raw schemas are sent
// as they are) or that do not compile, and problems found while deriving
// typed tools' schemas, every struct tag that cannot apply included. Each
// problem names the tool. It returns nil when there are none.
//
// A server built from data (table names, proto methods, a config file)
// should call Check before serving and report its error: [NewHTTPHandler]
// panics and [Server.Run] returns an error on a problem, so that a
// misdeclared server never starts. Once a transport serves, problems of
// tools added later are logged at Error level instead, naming the tool,
// and the tool is not added; Check does not report them.
//
// The checks added with [Server.AddCheck] run too, each time Check runs.
func (s *Server) Check() error {
	s.mu.RLock()
	problems := slices.Clone(s.problems)
	checks := slices.Clone(s.checks)
	s.mu.RUnlock()
	for _, check := range checks {
		if err := check(); err != nil {
			problems = append(problems, err)
		}
	}
	return errors.Join(problems...)
}

// AddCheck adds a start-up check that [Server.Check] runs, and that every
// transport runs before it serves: a layer that binds tools to something
// outside the server (a route on an HTTP handler, a procedure, a table)
// checks there that what a tool names exists, and returns an error naming
// the tool and what is missing. A check runs once per Check, without the
// server's lock held, so it may read the server ([Server.Catalog]); it
// must not add or remove entries. A check added once serving started
// runs only when Check is called.
func (s *Server) AddCheck(check func() error) {
	if check == nil {
		panic("ferry: AddCheck needs a check") //nolint:forbidigo // a programmer error at registration
	}
	s.mu.Lock()
	s.checks = append(s.checks, check)
	s.mu.Unlock()
}

// startServing runs [Server.Check] for a transport about to serve, and
// marks the server serving when it passes.
func (s *Server) startServing() error {
	if err := s.Check(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := errors.Join(s.problems...); err != nil {
		return err
	}
	s.serving = true
	return nil
}

// problem records a start-up problem, or logs it at Error level when the
// server already serves (the problem's text names what has it).
func (s *Server) problem(err error) {
	s.mu.Lock()
	serving := s.serving
	if !serving {
		s.problems = append(s.problems, err)
	}
	s.mu.Unlock()
	if serving {
		s.logger.Error("registration problem found after serving started", "problem", err)
	}
}

// admit registers an entry of the given kind ("tool", "prompt") and name,
// whose problems are known. Under s.mu it adds the problems that only the
// registry can tell (dup, which may be nil), then calls add, if it may: before
// serving, the entry is added and its problems kept for [Server.Check];
// once serving, an entry with a problem is not added, and each problem is
// logged at Error level with the entry named. add nil admits nothing (an
// entry that cannot be served at all). It reports whether add ran.
func (s *Server) admit(kind, name string, problems []error, dup func() []error, add func()) bool {
	s.mu.Lock()
	if dup != nil {
		problems = append(problems, dup()...)
	}
	serving := s.serving
	added := add != nil && (!serving || len(problems) == 0)
	if !serving {
		s.problems = append(s.problems, problems...)
	}
	if added {
		add()
	}
	s.mu.Unlock()
	if serving {
		for _, err := range problems {
			s.logger.Error(kind+" not added: a problem found after serving started", kind, name, "problem", err)
		}
	}
	return added
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
	for _, p := range requirementProblems(t.Scopes, t.Roles) {
		add("%s", p)
	}
	return errs
}
