package main

import (
	"context"
	"fmt"

	"github.com/ferry-mcp/ferry/entity"
)

// addQueries serves the queries of the -queries directory's .sql files
// on set: each is prepared and described by the database now, and one
// that fails stops start-up naming its file and line. A write query is
// served only with -writes; without, start-up says it is left out.
func (s *server) addQueries(ctx context.Context, set *entity.Set, out *servedTables) error {
	qs, err := entity.ReadQueries(s.cfg.queries)
	if err != nil {
		return fmt.Errorf("-queries: %w", err)
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
