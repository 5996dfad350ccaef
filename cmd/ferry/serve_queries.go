package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
	"github.com/ferry-mcp/ferry/entity"
)

// addQueries serves the queries of the -queries directory's .sql files
// on set: each is prepared and described by the database now, and one
// that fails stops start-up naming its file and line. A write query is
// served only with -writes; without, start-up says it is left out.
func (s *server) addQueries(ctx context.Context, set *entity.Set, conf *serveconfig.Config, out *servedTables) error {
	qs, err := entity.ReadQueries(s.cfg.queries)
	if err != nil {
		return fmt.Errorf("-queries: %w", err)
	}
	if err := setQueryAccess(qs, conf); err != nil {
		return err
	}
	stop := s.progress(fmt.Sprintf("preparing %d queries of %s…", len(qs), s.cfg.queries), progressAfter)
	defer stop()
	for _, q := range qs {
		if q.Mode == entity.Exec && !s.cfg.writes {
			out.notes = append(out.notes, fmt.Sprintf("query %s (%s:%d) writes: served only with -writes", q.Name, q.File, q.Line))
			continue
		}
		if err := set.AddQuery(ctx, q); err != nil {
			return err
		}
		out.queries = append(out.queries, q.Name)
	}
	return nil
}

// setQueryAccess gives each query the callers the config file's queries
// entry names; an entry for no query is refused, naming its line.
func setQueryAccess(qs []*entity.Query, conf *serveconfig.Config) error {
	if conf == nil {
		return nil
	}
	for name, a := range conf.Queries {
		i := slices.IndexFunc(qs, func(q *entity.Query) bool { return q.Name == name })
		if i < 0 {
			return fmt.Errorf("%s:%d:%d: queries: %q is not a query of -queries", conf.File, a.Name.Line, a.Name.Column, name)
		}
		qs[i].Access = entity.Callers{Scopes: a.Scopes, Roles: a.Roles}
	}
	return nil
}

// entityAccess is a table's access entry as the entity package takes it.
func entityAccess(a *serveconfig.Access) entity.Access {
	if a == nil {
		return entity.Access{}
	}
	c := func(c serveconfig.Callers) entity.Callers { return entity.Callers{Scopes: c.Scopes, Roles: c.Roles} }
	return entity.Access{Read: c(a.Read), Write: c(a.Write), Delete: c(a.Delete)}
}
