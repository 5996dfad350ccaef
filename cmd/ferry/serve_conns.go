package main

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/ferry-mcp/ferry/cmd/ferry/internal/dsn"
	"github.com/ferry-mcp/ferry/entity"
)

// sayConnections prints the bound of the database connections, and a
// warning when it is above what the server allows this user.
func (s *server) sayConnections(src *source) {
	db, flag := src.db, "-db-max-conns"
	if src.conf != nil {
		flag = "max_conns"
	}
	s.say("%sdatabase connections: at most %d at once (%s)", src.where(), db.maxConns, flag)
	if db.connLimit != "" {
		s.say("%s%s", src.where(), db.connLimit)
	}
}

// connLimitWarning is a warning that the bound of d's connections is
// above what the server lets this user open, or empty: calls past the
// server's limit would be refused by it rather than wait in ferry.
func connLimitWarning(ctx context.Context, db *sql.DB, d *dsn.Database) string {
	limit, what := serverConnLimit(ctx, db, d.Engine)
	if limit > 0 && d.MaxConns > limit {
		return fmt.Sprintf("warning: -db-max-conns %d is above the %d connections %s; lower it, or calls will be refused by the database when it is busy", d.MaxConns, limit, what)
	}
	return ""
}

// serverConnLimit is how many connections the database server lets this
// user open, and what sets it; 0 when it cannot tell or sets none.
func serverConnLimit(ctx context.Context, db *sql.DB, e entity.Engine) (int, string) {
	switch e {
	case entity.PostgreSQL:
		var maxConns, reserved, role int
		err := db.QueryRowContext(ctx, `SELECT current_setting('max_connections')::int,
			current_setting('superuser_reserved_connections')::int,
			(SELECT rolconnlimit FROM pg_roles WHERE rolname = current_user)`).Scan(&maxConns, &reserved, &role)
		switch {
		case err != nil:
			return 0, ""
		case role >= 0 && role < maxConns-reserved:
			return role, "this role may open (its CONNECTION LIMIT)"
		}
		return maxConns - reserved, fmt.Sprintf("PostgreSQL allows (max_connections %d less superuser_reserved_connections %d)", maxConns, reserved)
	case entity.MySQL:
		var maxConns, user int
		if err := db.QueryRowContext(ctx, "SELECT @@max_connections, @@max_user_connections").Scan(&maxConns, &user); err != nil {
			return 0, ""
		}
		if user > 0 && user < maxConns {
			return user, "a user may open (max_user_connections)"
		}
		return maxConns, "the server allows (max_connections)"
	}
	return 0, ""
}
