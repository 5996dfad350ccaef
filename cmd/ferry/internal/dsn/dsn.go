// Package dsn turns the database URLs ferry serve takes into database
// handles: a SQLite path or file: URL, a postgres:// URL or a mysql://
// URL. Every part of a URL is parsed into the driver's own configuration
// (pgx's ConnConfig, go-sql-driver's Config) and never written back into
// a DSN string, so a password holding "@", "/" or "?" means what it says
// and nothing in it becomes a driver parameter.
//
//	db, err := dsn.Parse("postgres://app@db:5432/shop?search_path=sales", &dsn.Options{Password: pw})
//	if err != nil {
//		return err // names the part of the URL that is wrong
//	}
//	sqlDB, err := db.Open()
//
// A database opened without Options.Writes is read-only where the
// connection can say so: SQLite opens the file with mode=ro and
// PostgreSQL sessions start with default_transaction_read_only on;
// MySQL and MariaDB connections run SET SESSION TRANSACTION READ ONLY
// before they are used. A database user with only the privileges it needs
// remains the stronger guard.
//
// A handle holds at most [Options.MaxConns] connections, by default a
// share of the engine's own limit ([DefaultMaxConns]).
package dsn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry/entity"
	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite" // the "sqlite" driver
)

// Options configures Parse. A nil *Options is the zero value.
type Options struct {
	// Password is used when the URL carries a user but no password (so
	// that it can come from the environment rather than the command
	// line). A password in the URL wins.
	Password string
	// Writes opens the database for writing. If false, it is opened
	// read-only where the connection allows (see the package comment).
	Writes bool
	// MaxConns bounds the connections the handle holds at once (in use
	// and idle). If zero, [DefaultMaxConns] of the engine.
	MaxConns int
	// BusyTimeout is how long a SQLite statement waits for a lock another
	// connection holds (busy_timeout), at millisecond precision. If zero,
	// [SQLiteBusyTimeout] milliseconds.
	BusyTimeout time.Duration
}

// ServerMaxConns is the default bound of a PostgreSQL or MySQL/MariaDB
// handle's connections: a tenth of PostgreSQL's default max_connections
// (100, of which superuser_reserved_connections keeps 3 for superusers)
// and less of MySQL's and MariaDB's (151), so that other clients, a
// second server and the administrator still connect. A server runs about
// as many queries at once as it has cores: more connections would mostly
// queue in the database what a bound queues in the handle.
const ServerMaxConns = 10

// DefaultMaxConns is the bound of a handle's connections when
// [Options.MaxConns] is zero: [ServerMaxConns] for PostgreSQL and
// MySQL/MariaDB, and for SQLite, which has no connection limit of its
// own, twice GOMAXPROCS and at least 4. SQLite runs queries in this
// process, so more connections than cores only share them, and each
// connection costs a file descriptor and a page cache; its writes take
// turns whatever the bound (see entity.NewSet).
func DefaultMaxConns(e entity.Engine) int {
	if e == entity.SQLite {
		return max(4, 2*runtime.GOMAXPROCS(0))
	}
	return ServerMaxConns
}

// ConnMaxIdleTime is how long a connection of the handle stays open
// unused before it is closed.
const ConnMaxIdleTime = time.Minute

// DialTimeout bounds connecting to a PostgreSQL or MySQL server.
const DialTimeout = 10 * time.Second

// SQLiteBusyTimeout is how long a SQLite connection waits for another's
// lock before failing, in milliseconds, when [Options.BusyTimeout] is
// zero.
const SQLiteBusyTimeout = 5000

// A Database is a parsed database URL, ready to open.
type Database struct {
	// Engine is the database's engine.
	Engine entity.Engine
	// Display is the URL as it may be printed: the password, if any, is
	// replaced by "xxxxx".
	Display string
	// Name is the database's name alone (a SQLite file's base name, a
	// server database's name), for what clients are shown: no host, user
	// or path.
	Name string
	// MaxConns is the bound of the handle's connections: the one
	// [Options.MaxConns] gave, or the engine's default.
	MaxConns int
	open     func() (*sql.DB, error)
}

// Open returns a handle to the database, holding at most MaxConns
// connections at once: a query past the bound waits for a free one
// within its context. Like sql.Open, it does not connect: ping it to
// learn whether the server answers.
func (d *Database) Open() (*sql.DB, error) {
	db, err := d.open()
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(d.MaxConns)
	db.SetMaxIdleConns(d.MaxConns)
	db.SetConnMaxIdleTime(ConnMaxIdleTime)
	return db, nil
}

// Parse reads a database URL: a SQLite path ("shop.db", "./data/shop.db",
// "/var/lib/shop.db"), a file: or sqlite: URL, a postgres:// (or
// postgresql://) URL, or a mysql:// URL. A SQLite file must exist: it is
// never created. The error names what is wrong, never the password.
func Parse(raw string, opts *Options) (*Database, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if strings.TrimSpace(raw) == "" {
		return nil, errors.New("no database URL given")
	}
	if strings.ContainsAny(raw, "\x00\r\n") {
		return nil, errors.New("the database URL holds a control character")
	}
	if o.MaxConns < 0 {
		return nil, fmt.Errorf("a bound of %d connections: give 1 or more", o.MaxConns)
	}
	d, err := parse(raw, o)
	if err != nil {
		return nil, err
	}
	d.MaxConns = o.MaxConns
	if d.MaxConns == 0 {
		d.MaxConns = DefaultMaxConns(d.Engine)
	}
	return d, nil
}

// parse is Parse by the URL's form.
func parse(raw string, o Options) (*Database, error) {
	switch {
	case raw == ":memory:":
		return nil, errors.New("an in-memory SQLite database would be empty: give the path of a database file")
	case strings.Contains(raw, "@tcp(") || strings.Contains(raw, "@unix("):
		return nil, errors.New("this looks like a go-sql-driver DSN: give a URL, mysql://user:password@host:3306/db")
	case !strings.Contains(raw, "://") && strings.Contains(raw, "=") && strings.Contains(raw, " "):
		return nil, errors.New("this looks like a PostgreSQL key=value DSN: give a URL, postgres://user@host:5432/db?sslmode=disable")
	}
	scheme, _, hasScheme := strings.Cut(raw, ":")
	// A Windows path (C:\x) or a path with a colon but no "//" is a path.
	if !hasScheme || len(scheme) == 1 || strings.ContainsAny(scheme, `/\.`) {
		return sqlitePath(raw, nil, o)
	}
	switch strings.ToLower(scheme) {
	case "file", "sqlite", "sqlite3":
		return sqliteURL(raw, o)
	case "postgres", "postgresql":
		return postgres(raw, o)
	case "mysql", "mariadb":
		return mysqlURL(raw, o)
	}
	return nil, fmt.Errorf("unsupported database scheme %q: give a SQLite path, a file: URL, postgres://… or mysql://…", scheme)
}

// parseURL parses u, with an error that does not repeat it (it may hold a
// password).
func parseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("the database URL is malformed: %w", err)
	}
	return u, nil
}

// query parses u's query strictly: url.URL.Query drops what it cannot
// parse (a ";" among them), which would hide a mistake.
func query(u *url.URL) (url.Values, error) {
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return nil, fmt.Errorf("the database URL's query is malformed: %w", err)
	}
	return q, nil
}

// sqliteURL reads file:PATH?query, file:///PATH and sqlite://PATH.
func sqliteURL(raw string, o Options) (*Database, error) {
	u, err := parseURL(raw)
	if err != nil {
		return nil, err
	}
	if u.Host != "" && u.Host != "localhost" {
		return nil, fmt.Errorf("a SQLite URL names a local file, not host %q (file:/abs/path or file:rel/path)", u.Host)
	}
	path := u.Path
	if u.Opaque != "" {
		if path, err = url.PathUnescape(u.Opaque); err != nil {
			return nil, fmt.Errorf("the SQLite path is malformed: %w", err)
		}
	}
	if path == "" {
		return nil, errors.New("the SQLite URL names no file")
	}
	q, err := query(u)
	if err != nil {
		return nil, err
	}
	return sqlitePath(path, q, o)
}

// sqliteParams are the query parameters a SQLite URL may carry: the
// SQLite URI parameters that do not change what is opened, and the
// driver's pragma and time format settings.
var sqliteParams = map[string]bool{"_pragma": true, "_time_format": true, "cache": true, "immutable": true, "_txlock": true}

// sqlitePath opens the SQLite file at path, which must exist.
func sqlitePath(path string, q url.Values, o Options) (*Database, error) {
	for k := range q {
		if !sqliteParams[k] {
			return nil, fmt.Errorf("the SQLite URL has parameter %q, which ferry serve does not take (it sets mode itself; _pragma, _time_format, cache and immutable are allowed)", k)
		}
	}
	if o.Writes && q.Has("immutable") && q.Get("immutable") != "0" {
		return nil, errors.New("the SQLite URL has immutable=1, which takes no locks and cannot be written safely: remove it, or leave out -writes")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("the SQLite path %q: %w", path, err)
	}
	fi, err := os.Stat(abs) //nolint:gosec // G703: the file the user named with -db
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("no SQLite database at %s (ferry serve never creates one; check the path)", abs)
	case err != nil:
		return nil, fmt.Errorf("the SQLite database %s: %w", abs, err)
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a directory, not a SQLite database", abs)
	}
	params := url.Values{}
	for k, vs := range q {
		params[k] = append([]string(nil), vs...)
	}
	params.Set("mode", "ro")
	if o.Writes {
		params.Set("mode", "rw")
	}
	busy := int64(SQLiteBusyTimeout)
	if o.BusyTimeout > 0 {
		busy = max(o.BusyTimeout.Milliseconds(), 1)
	}
	params.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy, 10)+")")
	params.Add("_pragma", "foreign_keys(1)")
	// SQLite decodes %XX in a URI's path; escape what would end it.
	dsn := "file:" + escapeSQLitePath(filepath.ToSlash(abs)) + "?" + params.Encode()
	return &Database{
		Engine:  entity.SQLite,
		Display: abs,
		Name:    filepath.Base(abs),
		open:    func() (*sql.DB, error) { return sql.Open("sqlite", dsn) },
	}, nil
}

// escapeSQLitePath percent-encodes the characters of a path that a
// SQLite URI would otherwise read as syntax.
func escapeSQLitePath(p string) string {
	var b strings.Builder
	for i := range len(p) {
		c := p[i]
		switch {
		case c == '%' || c == '?' || c == '#' || c < 0x20 || c == 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// postgres reads a postgres:// URL with pgx, which keeps search_path and
// other unknown query parameters as session settings.
func postgres(raw string, o Options) (*Database, error) {
	u, err := parseURL(raw)
	if err != nil {
		return nil, err
	}
	q, err := query(u)
	if err != nil {
		return nil, err
	}
	// A Unix socket's directory is the host parameter, with no host in
	// the URL; both would leave the displayed host not the one used.
	switch {
	case u.Host == "" && q.Get("host") == "":
		return nil, errors.New("the PostgreSQL URL names no host (postgres://user@host:5432/db, or postgres://user@/db?host=/var/run/postgresql for a socket)")
	case u.Host != "" && q.Has("host"):
		return nil, fmt.Errorf("the PostgreSQL URL names its host twice (%s and the host parameter); give one", u.Hostname())
	}
	if strings.TrimPrefix(u.Path, "/") == "" {
		return nil, errors.New("the PostgreSQL URL names no database (postgres://user@host:5432/db)")
	}
	cfg, err := pgx.ParseConfig(raw)
	if err != nil {
		// pgx's message may quote the URL: keep only that it failed.
		return nil, fmt.Errorf("the PostgreSQL URL is not valid: %s", redactedPGError(err, u))
	}
	for k := range cfg.RuntimeParams {
		// PostgreSQL folds the case of a setting's name, and pgx sends
		// every spelling: DEFAULT_TRANSACTION_READ_ONLY=off would undo
		// the read-only set below.
		if strings.EqualFold(k, "default_transaction_read_only") || strings.EqualFold(k, "transaction_read_only") {
			return nil, fmt.Errorf("the PostgreSQL URL sets %s: ferry serve sets read-only itself (remove it; -writes allows writes)", k)
		}
	}
	if cfg.Password == "" && o.Password != "" {
		cfg.Password = o.Password
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = DialTimeout
	}
	if !o.Writes {
		cfg.RuntimeParams["default_transaction_read_only"] = "on"
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "ferry serve"
	}
	return &Database{
		Engine:  entity.PostgreSQL,
		Display: redacted(u),
		Name:    cfg.Database,
		open:    func() (*sql.DB, error) { return stdlib.OpenDB(*cfg), nil },
	}, nil
}

// redactedPGError is pgx's parse error without the URL's password.
func redactedPGError(err error, u *url.URL) string {
	msg := err.Error()
	if pw, ok := u.User.Password(); ok && pw != "" {
		msg = strings.ReplaceAll(msg, pw, "xxxxx")
		msg = strings.ReplaceAll(msg, url.QueryEscape(pw), "xxxxx")
		msg = strings.ReplaceAll(msg, url.PathEscape(pw), "xxxxx")
	}
	return msg
}

// mysqlParams are the query parameters a mysql:// URL may carry, each
// mapped onto go-sql-driver's Config field by field.
var mysqlParams = map[string]func(c *mysql.Config, v string) error{
	"tls": func(c *mysql.Config, v string) error {
		switch v {
		case "true", "false", "skip-verify", "preferred":
			c.TLSConfig = v
			return nil
		}
		return fmt.Errorf("tls=%q: want true, false, skip-verify or preferred", v)
	},
	"charset": func(c *mysql.Config, v string) error {
		if v == "" || strings.ContainsFunc(v, func(r rune) bool { return !isWordRune(r) }) {
			return fmt.Errorf("charset=%q is not a character set name", v)
		}
		c.Params = map[string]string{"charset": v}
		return nil
	},
}

func isWordRune(r rune) bool {
	return r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
}

// mysqlURL reads mysql://user:password@host:3306/db into the driver's
// Config, field by field: no DSN string is ever assembled.
func mysqlURL(raw string, o Options) (*Database, error) {
	u, err := parseURL(raw)
	if err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, errors.New("the MySQL URL names no host (mysql://user:password@host:3306/db)")
	}
	db, err := url.PathUnescape(strings.TrimPrefix(u.EscapedPath(), "/"))
	if err != nil || db == "" || strings.Contains(db, "/") {
		return nil, errors.New("the MySQL URL names no database, or more than one path segment (mysql://user:password@host:3306/db)")
	}
	cfg := mysql.NewConfig()
	cfg.Net = "tcp"
	cfg.Addr = u.Host
	if u.Port() == "" {
		cfg.Addr = net.JoinHostPort(u.Hostname(), "3306")
	}
	cfg.DBName = db
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	if cfg.User == "" {
		return nil, errors.New("the MySQL URL names no user (mysql://user:password@host:3306/db)")
	}
	if cfg.Passwd == "" {
		cfg.Passwd = o.Password
	}
	q, err := query(u)
	if err != nil {
		return nil, err
	}
	for k, vs := range q {
		set, ok := mysqlParams[k]
		if !ok {
			return nil, fmt.Errorf("the MySQL URL has parameter %q, which ferry serve does not take (tls and charset are allowed)", k)
		}
		if len(vs) != 1 {
			return nil, fmt.Errorf("the MySQL URL gives parameter %q more than once", k)
		}
		if err := set(cfg, vs[0]); err != nil {
			return nil, fmt.Errorf("the MySQL URL: %w", err)
		}
	}
	// Entity reads DATETIME and TIMESTAMP as time.Time in UTC.
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Timeout = DialTimeout
	// The safe defaults, set where a reader can see them: one statement
	// per query, parameters bound by the server, no client files.
	cfg.MultiStatements = false
	cfg.InterpolateParams = false
	cfg.AllowAllFiles = false
	connector, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("the MySQL URL: %w", err)
	}
	c := connector
	if !o.Writes {
		c = readOnlyConnector{connector}
	}
	return &Database{
		Engine:  entity.MySQL,
		Display: redacted(u),
		Name:    db,
		open:    func() (*sql.DB, error) { return sql.OpenDB(c), nil },
	}, nil
}

// readOnlyConnector makes each MySQL or MariaDB connection's transactions
// read-only (SET SESSION TRANSACTION READ ONLY, which both spell alike),
// autocommitted statements included, before database/sql hands it out.
type readOnlyConnector struct{ driver.Connector }

// Connect implements driver.Connector.
func (c readOnlyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("dsn: the MySQL connection cannot run statements")
	}
	if _, err := ex.ExecContext(ctx, "SET SESSION TRANSACTION READ ONLY", nil); err != nil {
		_ = conn.Close()
		return nil, fmt.Errorf("making the session read-only: %w", err)
	}
	return conn, nil
}

// redacted is u as it may be printed: the password of its user and of a
// password query parameter (which pgx reads too) shown as xxxxx.
func redacted(u *url.URL) string {
	c := *u
	if q := c.Query(); q.Has("password") {
		q.Set("password", "xxxxx")
		c.RawQuery = q.Encode()
	}
	return c.Redacted()
}
