package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/cmd/ferry/internal/serveconfig"
	"github.com/ferry-mcp/ferry/entity"
	"github.com/ferry-mcp/ferry/workbench"
)

const serveHelp = `usage: ferry serve -db URL [flags]
       ferry serve -openapi FILE|URL -upstream URL [-operations ids,tags] [flags]
       ferry serve -proto FILE -upstream URL [flags]

Serves the tables of a database as MCP entity tools, with no code: a table
named products gives list_products and get_product, and with -writes
create_product, update_product and delete_product. Read-only by default.

  -db takes a SQLite path or file: URL, postgres://user@host:5432/db?sslmode=disable
  (search_path honoured; a socket is postgres://user@/db?host=/var/run/postgresql)
  or mysql://user:password@host:3306/db. The password may instead come from
  $FERRY_DB_PASSWORD; -db-env NAME reads the whole URL from $NAME; with
  neither -db nor -db-env, $FERRY_DB is read.

Over HTTP (MCP at /mcp) a client needs a credential: -api-key-env NAME
(accepted keys, comma-separated, in $NAME; sent as X-API-Key or
"Authorization: Bearer") or -jwt-jwks, -jwt-issuer and -jwt-audience (JWT
bearer tokens; RFC 9728 metadata is served; -jwt-require-typ also
refuses tokens whose typ header is not at+jwt, as RFC 9068 access tokens
carry it), or both. A key's caller is
named api-key-1, api-key-2 (its place in the list) and a token's is its
sub: the two are never one caller (session, limits), even with one name.
With neither, only a loopback address is served, unless -insecure. -stdio
serves one local client.
-ui serves the workbench at /ui/: a page that lists the tools, prompts and
resources, calls them through /mcp with the credential typed into it, and
shows a trace of the last calls of every client. The trace is read with
the credential /mcp takes: every caller's on loopback without
authentication, every API key's, and with -jwt-jwks only that of a token
holding -ui-trace-scope SCOPE; with -insecure it is off.
/healthz answers 200 while the process serves, and /readyz 200 while it
is not stopping and its database answers, 503 otherwise, with each
dependency's state in a JSON body; both take no credential, for a
platform's probes (docs/replicas.md shows a Kubernetes setup).

Above 80 tools (-discovery auto, the default) tools/list carries two tools
instead of every tool: search_tools finds the tools that fit a task and
call_tool calls one, under every rule of a direct call. -discovery on or
off forces it either way. Each table's tools are in two groups, its schema
(the database's name for SQLite and MySQL) and its plural name;
-group-endpoints also serves each group at /mcp/{group} and prints the
URLs, for a client that needs only a part. With -stdio, -toolsets starts a
legacy (2025) client with a toolsets tool instead, with which it enables
the groups it needs (its lists then change, and it is told).

JSON columns (PostgreSQL json and jsonb, MySQL and MariaDB JSON, a SQLite
column declared JSON or checked by json_valid) are served as JSON values,
written as given (checked, bound), and filtered by member:
attrs.color == "red", attrs["a-b"].n != 3, attrs == null. PostgreSQL
arrays of text, numbers, booleans or UUIDs are served as JSON arrays and
filtered by membership: "x" in tags. A CHECK (col IN (...)) on a text
column becomes its enum. Columns of other types (bytes, intervals, ...)
are left out, a table without a single-column primary key gets a list tool
only, and one with a hidden or left-out column that is NOT NULL with no
default gets no create tool (no insert could succeed); start-up says
which tables, and why. The write tools' schemas say
what a column holds (varchar(n)'s maxLength, numeric(p,s)'s multipleOf and
bounds, an int's range), and a value the column would cut or round is
refused rather than stored changed (a time finer than a timestamp(0) or
MySQL datetime column keeps, too). A char(n) value is served and filtered
without its padding; a NaN or infinite number is served as null, and
filters treat it as null.

Each caller (an API key, a token's subject, an anonymous client's address;
every -stdio client is one) may have -max-calls-per-caller tool calls
running at once (default 32) and make -call-rate calls a second on average
(default 50), -call-burst at once above that (default 100); 0 lifts a
limit. A call over a limit is refused, without running, as "unavailable"
naming the limit and its flag; a client that sends calls quickly from one
key should back off and retry. Each tool result holds at most
-max-result-bytes (default 100000, about what Claude Code takes whole): a
larger one is cut, a list at a whole row with hasMore set, so the client
pages on. A table's timeout in the config file (below) replaces
-statement-timeout for its calls. The start-up lines say the limits.

-confirm has a person confirm each call that may destroy or overwrite data
(delete_, update_, a query's DELETE or UPDATE, a remote API's DELETE, PUT,
PATCH or POST) before it runs: the client shows its user the tool, the
arguments and what the call changes (an elicitation in a 2025 session; in
2026-07-28 an input_required answer the client retries with the user's
answer, bound to that call's arguments and caller). Only "accept" runs the
tool; "decline", "cancel", no answer within -confirm-timeout (default 2m;
a 2026-07-28 client has 10 minutes to retry), and a client that
cannot ask (no elicitation capability) get a refusal the model reads, and
nothing changes. With -confirm, HTTP keeps each 2025 client's session in
memory (so that the question can reach it): one process serves them.

-skills serves a skill (the MCP skills extension) per table, named after
it: a SKILL.md, written from the tools' descriptions and hints, that says
what each of the table's tools is for and in which order to call them
(list and search first, then get, then create and update, delete last).
Clients that speak the extension list them with skills/list; any client
reads them as skill://TABLE/SKILL.md resources.

The optional -config YAML file sets per table a description, a natural key,
hidden columns (per table: a view showing one needs its own entry), the
fields filter, sort and search may use, and the fields an aggregate tool
may sum, average and take the least and greatest of:

  tables:
    products:
      description: Products the shop sells.
      natural_key: sku
      hidden: [cost_price]
      filter: [name, price]
      sort: [name, price]
      search: [name, description]
      aggregate: [price]
      timeout: 30s       # its calls' SQL, in place of -statement-timeout
      fields:
        price: The unit price in euros.
      access:
        read: {scopes: [shop.read]}
        write: {scopes: [shop.write], roles: [staff]}
        delete: {roles: [admin]}
  queries:
    best_sellers: {scopes: [reports]}

access gives a table's tools to callers by their scopes (a JWT's scope
or scp claim: every one listed is needed) and roles (its roles claim: any
one listed will do): read for get and list, write for create and update,
delete for delete (write is as read if not given, delete as write). queries: does the same for
-queries tools. A caller without them does not see the tools, nor the
table in db://entities, and calling one is answered as an unknown tool.

-queries DIR serves the named SQL statements of DIR's .sql files as tools,
beside the tables (with -tables '', instead of them), written as sqlc
writes them:

  -- name: top_customers :many
  -- The customers who spent most since a day.
  -- @param since date The first day counted.
  -- @param top integer minimum:"1" maximum:"50" default:"10" How many.
  SELECT c.name, SUM(o.total_cents) AS spent FROM customers c
  JOIN orders o ON o.customer_id = c.id WHERE o.placed_at >= @since
  GROUP BY c.name ORDER BY spent DESC LIMIT @top

:many returns rows in data (at most 100, or -- @max_rows N; hasMore says
rows were left out), :one one row (or not-found), :exec a write's
rowsAffected, served only with -writes. Parameters are written @name and
always bound, never spliced. PostgreSQL infers their types; on SQLite and
MySQL an @param line gives it (text, integer, number, boolean, timestamp,
date, uuid), with minimum, maximum, minLength, maxLength, pattern, enum
(comma-separated), default (JSON) and nullable:"true". -- @column NAME TYPE
types a result column the engine cannot (an expression on SQLite). A
query is one SELECT, WITH, VALUES, INSERT, UPDATE, DELETE, MERGE or
REPLACE; a read that holds a write (a DELETE in a WITH, FOR UPDATE), DDL,
a second statement and a driver's own placeholders (?, $1) are refused.
A read runs in a read-only transaction under -statement-timeout. Every
statement is prepared when ferry serve starts: one that does not prepare
stops it, naming its file and line.

A table with aggregate: gets aggregate_<plural> (read-only): count, and
sum, avg, min and max of the fields named (min and max only of text, dates
and timestamps), over the records a filter keeps, as a whole or grouped by
up to 3 filter fields (a date or timestamp by day, month or year), with
orderBy over the groups and aggregates and skip/top over the groups:

  {"aggregates": ["count", "sum(price)"], "groupBy": ["created_at:month"],
   "filter": "price > 5.0", "orderBy": "sum(price) desc"}

Groups are told apart by code point whatever the column's collation, NULL
is a group of its own, days are UTC's, and the answer is the same on every
engine. A filter may compare two fields of one type: stock < reorder_level.

The config file may instead name several databases, of any engines, one
ferry serve serving them all:

  sources:
    shop:
      db: shop.db              # a SQLite path (relative to the file) or a URL
      queries_dir: queries     # as -queries, relative to the file
      tables:                  # and queries:, as above, per source
        products: {hidden: [cost_price]}
    billing:
      db_env: BILLING_DB       # the URL from $BILLING_DB
      password_env: BILLING_PW # the password of a URL that has none
      statement_timeout: 5s    # as -statement-timeout, for this source
      max_conns: 5             # as -db-max-conns, for this source
      only_tables: [invoices, customers]   # as -tables (exclude_tables too)
      prefix: clash            # clash (default), always or never
      tool_prefix: billing_    # the default: the source's name and _

A source's name (lowercase letters, digits, hyphens) is its group and its
schemas' scheme (billing://entities). Where two sources have a table or a
query whose tool names are the same, each one's tools get its prefix
(billing_list_customers, shop_list_customers), all the tools of that
table alike; prefix: always prefixes every tool of the source, never none
(a name two never-sources share stops start-up). A db: URL holding a
password is refused: secrets come from the environment. -db, -db-env,
-tables, -exclude-tables, -queries, -statement-timeout and -db-max-conns
do not go with sources: (each source has its key). A source that does not
answer at start-up stops it, naming the source; one that goes down later
makes its own tools answer "unavailable", and the other sources' tools
go on.

Each call in flight holds one database connection until it ends.
-db-max-conns bounds them: 10 by default on PostgreSQL and MySQL/MariaDB,
and on SQLite twice the CPUs, at least 4. A call past the bound waits for
a free connection until its deadline (-statement-timeout, 10s by default,
or -call-timeout if sooner), then is refused as unavailable and told to
try again later; if calls keep reporting all connections busy, raise
-db-max-conns. The database server's own limit is shared by every client,
the administrator included: PostgreSQL's max_connections (100 by default,
of which superuser_reserved_connections keeps 3 for superusers),
MySQL/MariaDB's max_connections (151), or a lower limit of the user.
Keep the bound, times the number of ferry serve processes, well under it
(start-up warns when the bound alone is above it). The per-caller limits
apply first: a call over them is refused before it waits for a
connection. On SQLite, writes take turns, one at a time, each within its
deadline; in WAL mode (PRAGMA journal_mode=WAL, a lasting setting of the
file, which ferry serve leaves as it finds it) reads go on during a write.

` + serveUpstreamHelp + `
flags:
`

// serveConfig is the parsed command line of ferry serve.
type serveConfig struct {
	db, dbEnv            string
	tables, exclude      []string
	noTables             bool   // -tables '': serve the queries only
	queries              string // -queries DIR
	writes               bool
	confirm              bool // -confirm: a person confirms each destructive call (serve_confirm.go)
	confirmTimeout       time.Duration
	skills               bool // -skills: a skill per table
	httpAddr             string
	stdio                bool
	apiKeyEnv            string
	jwks, issuer         string
	audience, resource   string
	jwtTyp               bool
	insecure             bool
	allowHosts           []string
	configFile           string
	timeout, callTimeout time.Duration
	maxConns             int
	limits               callerLimits
	remote               upstreamConfig  // -openapi or -proto
	groups               groupConfig     // -discovery, -group-endpoints (serve_groups.go)
	ui                   uiConfig        // -ui, -ui-trace-scope (serve_ui.go)
	given                map[string]bool // the flags given
}

// serve runs ferry serve.
func serve(ctx context.Context, args []string, e *env) error {
	c, err := parseServeFlags(args, e)
	if err != nil {
		return err
	}
	s := &server{cfg: c, env: e, log: slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))}
	return s.run(ctx)
}

func parseServeFlags(args []string, e *env) (*serveConfig, error) {
	c := &serveConfig{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.StringVar(&c.db, "db", "", "the database: a SQLite path or file: URL, a postgres:// or a mysql:// URL (default $FERRY_DB)")
	fs.StringVar(&c.dbEnv, "db-env", "", "read the database URL from this environment variable instead of -db")
	fs.Func("tables", "serve only these tables (comma-separated)", listFlag(&c.tables))
	fs.Func("exclude-tables", "leave these tables out (comma-separated)", listFlag(&c.exclude))
	fs.StringVar(&c.queries, "queries", "", "serve the named SQL statements of this directory's .sql files as tools (see above)")
	fs.BoolVar(&c.writes, "writes", false, "add the create, update and delete tools (default read-only)")
	fs.BoolVar(&c.confirm, "confirm", false, "have a person confirm each delete, update and other destructive call, through the client, before it runs")
	fs.DurationVar(&c.confirmTimeout, "confirm-timeout", ferry.DefaultConfirmTimeout, "with -confirm, how long a 2025 session's call waits for the person's answer")
	fs.StringVar(&c.httpAddr, "http", "127.0.0.1:8080", "serve MCP over HTTP at this address, at /mcp")
	fs.BoolVar(&c.stdio, "stdio", false, "serve one client over standard input and output instead of HTTP")
	fs.StringVar(&c.apiKeyEnv, "api-key-env", "", "accept the API keys listed (comma-separated) in this environment variable")
	fs.StringVar(&c.jwks, "jwt-jwks", "", "accept JWT bearer tokens signed by a key of this JWKS URL (https, or http on loopback)")
	fs.StringVar(&c.issuer, "jwt-issuer", "", "the issuer (iss) JWTs must have; required with -jwt-jwks")
	fs.StringVar(&c.audience, "jwt-audience", "", "an audience (aud) JWTs must hold (default the resource URL)")
	fs.BoolVar(&c.jwtTyp, "jwt-require-typ", false, "accept only JWTs whose typ header is at+jwt (RFC 9068 access tokens); turn on when the authorization server sets it")
	fs.StringVar(&c.resource, "resource-url", "", "the public URL of the MCP endpoint, for RFC 9728 metadata (default http://ADDR/mcp)")
	fs.BoolVar(&c.insecure, "insecure", false, "serve a non-loopback address with no authentication")
	fs.Func("allow-host", "a Host header value to serve besides loopback ones (comma-separated, repeatable)", listFlag(&c.allowHosts))
	fs.StringVar(&c.configFile, "config", "", "a YAML file of per-table settings (see above)")
	fs.DurationVar(&c.timeout, "statement-timeout", 0, "bound each call's SQL on the engine (default 10s)")
	fs.DurationVar(&c.callTimeout, "call-timeout", 0, "bound each tool call (default the server's)")
	fs.BoolVar(&c.skills, "skills", false, "serve a skill per table (the skills extension) saying what its tools are for and in which order to call them")
	fs.IntVar(&c.maxConns, "db-max-conns", 0, "at most this many database connections at once (default 10; SQLite 2 per CPU, at least 4; see above)")
	c.limits.register(fs)
	c.remote.register(fs)
	c.groups.register(fs)
	c.ui.register(fs)
	if err := parseFlags(fs, args, serveHelp, e.stdout, e.stderr); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		arg := redactedURL(fs.Arg(0))
		hint := "the database is -db URL"
		if c.db == "" && c.dbEnv == "" && fs.NArg() == 1 {
			hint = "did you mean ferry serve -db " + arg + "?"
		}
		fmt.Fprintf(e.stderr, "ferry: serve takes no arguments (got %q); %s\n", arg, hint)
		printUsage(fs, serveHelp, e.stderr)
		return nil, errUsage
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	c.given = set
	c.noTables = set["tables"] && len(c.tables) == 0
	if _, _, err := net.SplitHostPort(c.httpAddr); err != nil && !c.stdio {
		return nil, serveUsage(fmt.Sprintf("-http %q: want HOST:PORT, such as 127.0.0.1:8080 (127.0.0.1:0 picks a free port)", c.httpAddr))
	}
	switch {
	case c.stdio && set["http"]:
		return nil, serveUsage("-http and -stdio exclude each other; give one")
	case c.db != "" && c.dbEnv != "":
		return nil, serveUsage("-db and -db-env exclude each other; give one")
	case c.jwks == "" && (c.issuer != "" || c.audience != "" || c.jwtTyp):
		return nil, serveUsage("-jwt-issuer, -jwt-audience and -jwt-require-typ need -jwt-jwks URL")
	case c.jwks != "" && c.issuer == "":
		return nil, serveUsage("-jwt-jwks needs -jwt-issuer ISSUER (the iss tokens must carry)")
	case set["db-max-conns"] && c.maxConns < 1:
		return nil, serveUsage(fmt.Sprintf("-db-max-conns %d: give 1 or more (the default is 10, on SQLite 2 per CPU)", c.maxConns))
	case c.noTables && c.queries == "":
		return nil, serveUsage("-tables '' serves no table: give -queries DIR too, or name tables")
	case c.queries != "" && (c.remote.openapi != "" || c.remote.proto != ""):
		return nil, serveUsage("-queries serves a database's statements: it does not go with -openapi or -proto")
	case c.stdio && (c.apiKeyEnv != "" || c.jwks != ""):
		return nil, serveUsage("-stdio serves the local process that started ferry: authentication flags apply to -http only")
	}
	if err := c.limits.check(); err != nil {
		return nil, serveUsage(err.Error())
	}
	if err := c.ui.check(c); err != nil {
		return nil, err
	}
	if err := c.remote.check(c, set); err != nil {
		return nil, serveUsage(err.Error())
	}
	return c, nil
}

// redactedURL is s with the password of a URL in it shown as xxxxx.
func redactedURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return u.Redacted()
		}
	}
	return s
}

// serveUsage is a command-line mistake, exit 2, in one line.
func serveUsage(msg string) error {
	return &exitError{code: exitUsage, err: errors.New(msg + "; see ferry serve -h")}
}

// listFlag appends comma-separated, trimmed, non-empty values to *dst.
func listFlag(dst *[]string) func(string) error {
	return func(v string) error {
		for p := range strings.SplitSeq(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				*dst = append(*dst, p)
			}
		}
		return nil
	}
}

// server is one run of ferry serve.
type server struct {
	cfg    *serveConfig
	env    *env
	log    *slog.Logger
	checks []ferry.HealthCheck // what /readyz checks: one per database (serve_health.go)
	trace  *workbench.Trace    // the workbench's trace, with -ui (serve_ui.go)
}

// say prints a start-up line on stderr.
func (s *server) say(format string, args ...any) {
	fmt.Fprintf(s.env.stderr, "ferry serve: "+format+"\n", args...)
}

func (s *server) run(ctx context.Context) error {
	if err := s.cfg.checkExposure(); err != nil {
		return err
	}
	if s.cfg.groups.toolsets && !s.cfg.stdio {
		return &exitError{code: exitUsage, err: errors.New("-toolsets needs -stdio: over HTTP ferry serve keeps no session to hold a client's choice (use -group-endpoints or discovery mode there)")}
	}
	a, err := s.prepareAuth()
	if err != nil {
		return err
	}
	defer a.close()
	srv, closeAll, err := s.buildAny(ctx)
	if err != nil {
		return err
	}
	defer closeAll()
	s.applyDiscovery(srv)
	if s.cfg.stdio {
		s.say("serving MCP over stdio")
		err := srv.Run(ctx, &ferry.IOTransport{Reader: s.env.stdin, Writer: s.env.stdout})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, io.EOF) {
			return err
		}
		return nil
	}
	return s.serveHTTP(ctx, srv, a)
}

// buildAny makes the server the flags ask for: of a remote API (-openapi,
// -proto) or of a database. closeAll releases what it opened.
func (s *server) buildAny(ctx context.Context) (srv *ferry.Server, closeAll func(), err error) {
	switch {
	case s.cfg.remote.openapi != "":
		srv, err = s.buildOpenAPI(ctx)
	case s.cfg.remote.proto != "":
		srv, err = s.buildProto(ctx)
	default:
		var closeDBs func()
		if srv, closeDBs, err = s.build(ctx); err == nil {
			return srv, closeDBs, nil
		}
	}
	return srv, func() {}, err
}

// build opens the databases (-db's, or the config file's sources:) and
// makes the server of their tables and queries, checked, saying on
// stderr what it serves. closeDBs closes the databases.
func (s *server) build(ctx context.Context) (srv *ferry.Server, closeDBs func(), err error) {
	start := time.Now()
	var conf *serveconfig.Config
	if s.cfg.configFile != "" {
		if conf, err = serveconfig.Load(s.cfg.configFile); err != nil {
			return nil, nil, err
		}
	}
	srcs, err := s.sources(conf)
	if err != nil {
		return nil, nil, err
	}
	if err := s.openSources(ctx, srcs); err != nil {
		return nil, nil, err
	}
	tables, queries := servedTools(srcs)
	// Clients see the databases' names, never their hosts, users or paths.
	opts := &ferry.ServerOptions{
		Title:        "ferry serve: " + sourceNames(srcs),
		Description:  describeSources(srcs),
		Instructions: instructions(s.cfg.writes, tables, queries) + severalSources(srcs),
		Logger:       s.log,
		ReadOnly:     !s.cfg.writes,
		Confirm:      s.cfg.confirm,
		Limits:       ferry.Limits{CallTimeout: s.cfg.callTimeout, ConfirmTimeout: s.cfg.confirmTimeout},
		Toolsets:     s.cfg.groups.toolsetOptions(),
		Observer:     s.observer(),
	}
	if s.cfg.skills {
		opts.Skills = &ferry.SkillOptions{}
	}
	s.cfg.limits.apply(opts)
	srv = ferry.NewServer("ferry-serve", version(), opts)
	err = s.addSources(ctx, srv, srcs)
	var skills []string
	if err == nil && s.cfg.skills {
		var added []*entity.Entity
		for _, src := range srcs {
			added = append(added, src.served.added...)
		}
		skills = addTableSkills(srv, added)
	}
	if err == nil {
		if err = srv.Check(); err != nil {
			err = fmt.Errorf("the database's tables cannot be served: %s", joinLines(err))
		}
	}
	if err != nil {
		closeSources(srcs)
		return nil, nil, err
	}
	for _, src := range srcs {
		name := src.name
		if name == "" {
			name = src.db.name
		}
		s.checks = append(s.checks, databaseCheck(name, src.db.db))
	}
	s.sayDatabases(srv, srcs, skills, start)
	return srv, func() { closeSources(srcs) }, nil
}

// describeSources is the server's description: the database, or the
// sources, by engine and name.
func describeSources(srcs []*source) string {
	if len(srcs) == 1 {
		db := srcs[0].db
		return "The tables of the " + string(db.engine) + " database " + db.name + " as entity tools."
	}
	parts := make([]string, len(srcs))
	for i, src := range srcs {
		parts[i] = fmt.Sprintf("%s (%s database %s)", src.name, src.db.engine, src.db.name)
	}
	return "The tables of several databases as entity tools: " + strings.Join(parts, ", ") + "."
}

// severalSources is what the instructions add for several sources.
func severalSources(srcs []*source) string {
	if len(srcs) == 1 {
		return ""
	}
	return " The tools serve several databases (" + sourceNames(srcs) + "): each one's tools are in a group of its name and its schemas at NAME://entities; where two have a table or query of one name, its tools are named with the database's prefix (such as " + srcs[0].toolPrefix + "list_...)."
}

// sayDatabases prints what the server serves, per source.
func (s *server) sayDatabases(srv *ferry.Server, srcs []*source, skills []string, start time.Time) {
	var schemas, timeouts []string
	for _, src := range srcs {
		served := &src.served
		if !src.noTables {
			s.say("%sserving %d %s of %s: %s", src.where(), len(served.tables), plural(len(served.tables), "table", "tables"), src.db.display, nameList(served.tables, maxListed))
			schemas = append(schemas, fmt.Sprintf("%s://entities and %s://relationships", src.scheme, src.scheme))
		}
		if src.queries != "" {
			s.say("%sserving %d %s of %s: %s", src.where(), len(served.queries), plural(len(served.queries), "query", "queries"), src.queries, nameList(served.queries, maxListed))
		}
		s.sayNotes(src.where(), src.scheme, served.notes)
		s.saySecrets(served.secrets)
		for _, t := range served.timeouts {
			timeouts = append(timeouts, src.where()+t)
		}
	}
	if s.cfg.skills {
		s.say("serving %d %s (skills/list, skill://NAME/SKILL.md): %s", len(skills), plural(len(skills), "skill", "skills"), nameList(skills, maxListed))
	}
	mode := "read-only (give -writes for create, update and delete)"
	if s.cfg.writes {
		mode = "with writes (create, update, delete)"
	}
	where := ""
	if len(schemas) > 0 {
		where = "; schemas at " + strings.Join(schemas, ", ")
	}
	s.say("%d tools, %s%s; ready in %s", len(srv.Catalog().Tools()), mode, where, time.Since(start).Round(time.Millisecond))
	for _, src := range srcs {
		s.sayConnections(src)
	}
	s.say("limits per caller: %s", &s.cfg.limits)
	s.say("result budget: %s", s.cfg.limits.budget())
	s.say("deadlines: %s", s.cfg.deadlines(srcs, timeouts))
	s.sayConfirm(srv)
}

// instructions tell the model how the tools work together.
func instructions(writes, tables, queries bool) string {
	if !tables {
		s := "Each tool runs one SQL statement the server's operator wrote, with the arguments bound; reads return data and hasMore."
		if writes {
			return s + " Tools that are not read-only change data and return rowsAffected."
		}
		return s + " The server is read-only."
	}
	s := "Each table has a list tool (list_<plural>: filter is a CEL expression over the fields it names, " +
		"orderBy, top and skip page on, search where offered) and, with a single-column key, a get tool " +
		"(get_<name>) by key or natural key. " + resourceScheme + "://entities describes every table's fields."
	if queries {
		s += " Other tools each run one SQL statement the server's operator wrote."
	}
	if writes {
		return s + " create_, update_ and delete_ tools change records; update changes only the fields given."
	}
	return s + " The server is read-only."
}

// maxListed is how many table names the start-up line shows.
const maxListed = 20

// nameList joins names, the first limit of them, saying how many more.
func nameList(names []string, limit int) string {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = tableName(n)
	}
	return joinLimited(shown, limit)
}

// joinLimited joins the first limit of items, saying how many more.
func joinLimited(items []string, limit int) string {
	if len(items) <= limit {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:limit], ", ") + fmt.Sprintf(" and %d more", len(items)-limit)
}

// tableName is a database name as stderr shows it: as it is when made
// of letters, digits and underscores, else quoted, so that a blank name
// shows and a control character in one cannot drive the terminal.
func tableName(name string) string {
	plain := name != "" && !strings.ContainsFunc(name, func(r rune) bool {
		return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if plain {
		return name
	}
	return strconv.Quote(name)
}

// joinLines joins a multi-line error's lines.
func joinLines(err error) string {
	var b strings.Builder
	for line := range strings.Lines(err.Error()) {
		line = strings.Join(strings.Fields(line), " ")
		switch {
		case line == "":
			continue
		case b.Len() == 0:
		case strings.HasSuffix(b.String(), ":"):
			b.WriteByte(' ')
		default:
			b.WriteString("; ")
		}
		b.WriteString(line)
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
