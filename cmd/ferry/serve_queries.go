package main

import (
	"context"
	"fmt"
	"slices"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
	"github.com/ferry-mcp/ferry/entity"
)

// planQueries reads the queries of src's .sql files (-queries or the
// source's queries_dir), to be added to its Set, which prepares and
// describes each with the database (see addSources): one that fails
// stops start-up naming its file and line. A write query is served only
// with -writes; without, start-up says it is left out. Each query is in
// its source's group, as the source's tables are (queryGroups).
func (s *server) planQueries(ctx context.Context, src *source) error {
	qs, err := entity.ReadQueries(src.queries)
	if err != nil {
		return fmt.Errorf("%s%s: %w", src.where(), src.queriesFlag(), err)
	}
	if err := setQueryAccess(qs, src); err != nil {
		return err
	}
	ns, err := queryGroups(ctx, src)
	if err != nil {
		return err
	}
	for _, q := range qs {
		q.Groups = withGroups(ns, q.Groups)
		if q.Mode == entity.Exec && !s.cfg.writes {
			src.served.notes = append(src.served.notes, fmt.Sprintf("query %s (%s:%d) writes: served only with -writes", q.Name, q.File, q.Line))
			continue
		}
		src.units = append(src.units, &unit{q: q})
	}
	return nil
}

// setQueryAccess gives each query the callers the config file's queries
// entry names; an entry for no query is refused, naming its line.
func setQueryAccess(qs []*entity.Query, src *source) error {
	conf := src.tablesConf
	if conf == nil {
		return nil
	}
	for name, a := range conf.Queries {
		i := slices.IndexFunc(qs, func(q *entity.Query) bool { return q.Name == name })
		if i < 0 {
			return fmt.Errorf("%s:%d:%d: queries: %q is not a query of %s", conf.File, a.Name.Line, a.Name.Column, name, src.queriesFlag())
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
