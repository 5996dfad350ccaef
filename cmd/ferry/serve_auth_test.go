package main

import (
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/ferrytest"
)

// With -api-key-env, a request with no key or a wrong one gets 401, and
// one with a listed key is served, by either header.
func TestServeAPIKey(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "SHOP_KEYS"}, "SHOP_KEYS", " k-one-123 ,k-two-456,")
	if r := s.post(t, "tools/list", nil); r.Status != http.StatusUnauthorized || !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
		t.Errorf("no key: status %d, WWW-Authenticate %q; want 401 with a Bearer challenge", r.Status, r.Header.Get("WWW-Authenticate"))
	}
	if r := s.post(t, "tools/list", nil, "X-API-Key", "k-three-789"); r.Status != http.StatusUnauthorized {
		t.Errorf("a wrong key: status %d; want 401", r.Status)
	}
	if got := s.tools(t, "X-API-Key", "k-two-456").names(); len(got) != len(readTools) {
		t.Errorf("tools with the key in X-API-Key: %v", got)
	}
	if rows := records(t, s.call(t, "list_customers", nil, "Authorization", "Bearer k-one-123")); len(rows) != 1 {
		t.Errorf("list_customers with the key as a bearer token: %v", rows)
	}
	if e := s.stderr.String(); !contains(e, "auth: API keys from $SHOP_KEYS (2)") || contains(e, "k-one-123") {
		t.Errorf("stderr should name the auth mode and never a key:\n%s", e)
	}

	code, stderr := failServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "NO_KEYS"})
	if code != exitUsage || !contains(stderr, "$NO_KEYS is empty or unset") {
		t.Errorf("an empty key variable: exit %d, %q; want 2 naming it", code, stderr)
	}
}

// jwksServer serves a JWKS of one generated RSA key and signs tokens with
// it.
type jwksServer struct {
	url    string
	signer jose.Signer // typ at+jwt
	plain  jose.Signer // typ JWT, as an ID token or many servers' access tokens
}

func newJWKSServer(t *testing.T) *jwksServer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	set, err := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "RS256", Use: "sig"}}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(set)
	}))
	t.Cleanup(hs.Close)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: jose.JSONWebKey{Key: key, KeyID: "k1"}}, (&jose.SignerOptions{}).WithType("JWT"))
	if err != nil {
		t.Fatal(err)
	}
	return &jwksServer{url: hs.URL + "/jwks.json", signer: signer, plain: plain}
}

func (j *jwksServer) token(t *testing.T, iss, aud string, ttl time.Duration) string {
	t.Helper()
	return j.tokenOf(t, iss, aud, "agent-7", ttl)
}

// tokenOf is token with the subject sub.
func (j *jwksServer) tokenOf(t *testing.T, iss, aud, sub string, ttl time.Duration) string {
	t.Helper()
	now := time.Now()
	tok, err := jwt.Signed(j.signer).Claims(jwt.Claims{
		Issuer: iss, Subject: sub, Audience: jwt.Audience{aud},
		IssuedAt: jwt.NewNumericDate(now.Add(-time.Minute)), Expiry: jwt.NewNumericDate(now.Add(ttl)),
	}).Serialize()
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// With -jwt-jwks, a token the JWKS's key signed for this issuer and
// audience is served; no token gets 401 naming the RFC 9728 metadata,
// which is served; a token for another audience, expired, or from another
// issuer gets 401.
func TestServeJWT(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-jwt-jwks", keys.url, "-jwt-issuer", iss})
	resource := s.url // the default resource URL is the endpoint's own

	r := s.post(t, "tools/list", nil)
	challenge := r.Header.Get("WWW-Authenticate")
	metadataURL := strings.TrimSuffix(s.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp"
	if r.Status != http.StatusUnauthorized || !contains(challenge, `resource_metadata="`+metadataURL+`"`) {
		t.Errorf("no token: status %d, WWW-Authenticate %q; want 401 naming %s", r.Status, challenge, metadataURL)
	}
	resp, err := http.Get(metadataURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	if err := json.Unmarshal(body, &meta); err != nil || meta.Resource != resource || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != iss {
		t.Errorf("metadata %s: %s (%v); want resource %s, authorization server %s", metadataURL, body, err, resource, iss)
	}

	good := keys.token(t, iss, resource, time.Hour)
	if got := s.tools(t, "Authorization", "Bearer "+good).names(); len(got) != len(readTools) {
		t.Errorf("tools with a good token: %v", got)
	}
	for name, tok := range map[string]string{
		"another audience": keys.token(t, iss, "https://other.example/mcp", time.Hour),
		"another issuer":   keys.token(t, "https://evil.example", resource, time.Hour),
		"expired":          keys.token(t, iss, resource, -time.Hour),
		"not signed":       strings.Join(strings.Split(good, ".")[:2], ".") + ".",
	} {
		if r := s.post(t, "tools/list", nil, "Authorization", "Bearer "+tok); r.Status != http.StatusUnauthorized {
			t.Errorf("%s: status %d; want 401", name, r.Status)
		}
	}
	if e := s.stderr.String(); !contains(e, "auth: JWT bearer tokens of "+iss) || contains(e, "warning") {
		t.Errorf("stderr does not name the auth mode:\n%s", s.stderr.String())
	}
}

// -jwt-require-typ refuses a token typed JWT (an ID token, say) that
// carries the right issuer and audience; without it, both are served.
func TestServeJWTRequireTyp(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	for _, strict := range []bool{false, true} {
		args := []string{"-db", d.url, "-http", "127.0.0.1:0", "-jwt-jwks", keys.url, "-jwt-issuer", iss}
		if strict {
			args = append(args, "-jwt-require-typ")
		}
		s := startServe(t, args)
		good := keys.token(t, iss, s.url, time.Hour)
		plain, err := jwt.Signed(keys.plain).Claims(jwt.Claims{
			Issuer: iss, Subject: "agent-7", Audience: jwt.Audience{s.url},
			IssuedAt: jwt.NewNumericDate(time.Now().Add(-time.Minute)), Expiry: jwt.NewNumericDate(time.Now().Add(time.Hour)),
		}).Serialize()
		if err != nil {
			t.Fatal(err)
		}
		if r := s.post(t, "tools/list", nil, "Authorization", "Bearer "+good); r.Status != http.StatusOK {
			t.Errorf("strict %v: an at+jwt token: status %d; want 200", strict, r.Status)
		}
		want := http.StatusOK
		if strict {
			want = http.StatusUnauthorized
		}
		if r := s.post(t, "tools/list", nil, "Authorization", "Bearer "+plain); r.Status != want {
			t.Errorf("strict %v: a token typed JWT: status %d; want %d", strict, r.Status, want)
		}
	}
}

// A JWKS that does not answer at start-up is a warning, not a failure;
// tokens get 503 until it answers.
func TestServeJWKSDown(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	// The fetch failures are logged on the command's stderr, like every
	// other record, never through the process-wide default logger.
	var global ferrytest.Buffer
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&global, nil)))
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-jwt-jwks", "http://127.0.0.1:1/jwks.json", "-jwt-issuer", iss})
	if !contains(s.stderr.String(), "warning: cannot fetch the JWKS at http://127.0.0.1:1/jwks.json yet") {
		t.Errorf("no warning:\n%s", s.stderr.String())
	}
	if !contains(s.stderr.String(), "level=WARN") || global.String() != "" {
		t.Errorf("the fetch failure went to the default logger (%q), not the command's stderr:\n%s", global.String(), s.stderr.String())
	}
	if r := s.post(t, "tools/list", nil, "Authorization", "Bearer "+keys.token(t, iss, s.url, time.Hour)); r.Status != http.StatusServiceUnavailable {
		t.Errorf("a token while the JWKS is down: status %d; want 503", r.Status)
	}
}

// With no authentication, an address other machines reach is refused
// before anything is opened, unless -insecure.
func TestServeRefusesOpenNonLoopback(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	for _, addr := range []string{"0.0.0.0:0", ":0", "[::]:0", "192.0.2.1:8080"} {
		code, stderr := failServe(t, []string{"-db", "/no/such/file.db", "-http", addr})
		if code != exitUsage || !contains(stderr, "no authentication is set") || !contains(stderr, "-insecure") || strings.Count(stderr, "\n") != 1 {
			t.Errorf("-http %s with no auth: exit %d, %q; want 2 and one line with the hint", addr, code, stderr)
		}
	}
	s := startServe(t, []string{"-db", d.url, "-http", "0.0.0.0:0", "-insecure"})
	if !contains(s.stderr.String(), "auth: NONE (-insecure)") {
		t.Errorf("an open server does not say so:\n%s", s.stderr.String())
	}
	if !contains(s.stderr.String(), "give -allow-host NAME") {
		t.Errorf("no hint about -allow-host:\n%s", s.stderr.String())
	}

	// With a key, a non-loopback address is served, for the hosts allowed.
	keyed := startServe(t, []string{"-db", d.url, "-http", "0.0.0.0:0", "-api-key-env", "K", "-allow-host", "shop.example"}, "K", "key-1")
	keyed.url = strings.Replace(keyed.url, "0.0.0.0", "127.0.0.1", 1)
	// A client sends the Host of its URL: post names the allowed one.
	r := keyed.post(t, "tools/list", nil, "X-API-Key", "key-1", "Host", "shop.example")
	var allowed toolList
	if err := json.Unmarshal(r.Result, &allowed); r.Status != http.StatusOK || err != nil || len(allowed.names()) != len(readTools) {
		t.Errorf("tools for an allowed host: status %d, %v (%v)", r.Status, allowed.names(), err)
	}
	if r := keyed.post(t, "tools/list", nil, "X-API-Key", "key-1", "Host", "evil.example"); r.Status != http.StatusForbidden {
		t.Errorf("a Host not allowed: status %d; want 403", r.Status)
	}
	for _, addr := range []string{"127.0.0.1:0", "localhost:0", "[::1]:0"} {
		if !isLoopback(addr) {
			t.Errorf("isLoopback(%q) = false", addr)
		}
	}
}

// Bad database URLs and unreachable servers stop start-up with one line
// and a hint, never showing the password.
func TestServeBadDatabase(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	const pw = "hunter2-secret"
	for _, tt := range []struct {
		args []string
		env  []string
		code int
		want string
	}{
		{[]string{}, nil, exitUsage, "no database: give -db URL"},
		{[]string{"-db", "mongodb://h/db"}, nil, exitUsage, `unsupported database scheme "mongodb"`},
		{[]string{"-db", "/no/such/shop.db"}, nil, exitUsage, "no SQLite database at /no/such/shop.db"},
		{[]string{"-db", "postgres://postgres:" + pw + "@127.0.0.1:1/test?sslmode=disable"}, nil, exitFailed, "cannot connect to postgres://postgres:xxxxx@127.0.0.1:1/test"},
		{[]string{"-db", "mysql://root:" + pw + "@127.0.0.1:1/test"}, nil, exitFailed, "cannot connect to mysql://root:xxxxx@127.0.0.1:1/test"},
		{[]string{"-db", "postgres://postgres@127.0.0.1:5432/ferry_no_such_db_x?sslmode=disable"}, []string{"FERRY_DB_PASSWORD", pw}, exitFailed, "ferry_no_such_db_x"},
		{[]string{"-db", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable&search_path=ferry_no_such_schema_x"}, nil, exitFailed, "the search_path names none that exists"},
		{[]string{"-db", d.url, "-config", "/no/such/serve.yaml"}, nil, exitFailed, "config: open /no/such/serve.yaml"},
		{[]string{"-db-env", "SHOP_DB"}, nil, exitUsage, "$SHOP_DB is empty or unset"},
		{[]string{"-db", d.url, "-db-env", "SHOP_DB"}, nil, exitUsage, "exclude each other"},
		{[]string{"-db", d.url, "-stdio", "-http", "127.0.0.1:0"}, nil, exitUsage, "exclude each other"},
		{[]string{"-db", d.url, "-jwt-jwks", "https://login.example.com/jwks"}, nil, exitUsage, "-jwt-jwks needs -jwt-issuer"},
		{[]string{"-db", d.url, "-jwt-jwks", "https://login.example.com/jwks", "-jwt-issuer", "x", "-http", "127.0.0.1:0"}, nil, exitUsage, `-jwt-issuer or -resource-url: auth: authorization server "x"`},
		{[]string{"-db", d.url, "-jwt-jwks", "http://login.example.com/jwks", "-jwt-issuer", "https://login.example.com"}, nil, exitUsage, "-jwt-jwks: "},
		{[]string{"-db", d.url, "extra"}, nil, exitUsage, "serve takes no arguments"},
	} {
		code, stderr := failServe(t, tt.args, tt.env...)
		first, _, _ := strings.Cut(stderr, "\n")
		if code != tt.code || !contains(first, tt.want) || contains(stderr, pw) {
			t.Errorf("ferry serve %q: exit %d, %q; want %d with %q and no password", tt.args, code, stderr, tt.code, tt.want)
		}
		if tt.code == exitFailed && strings.Count(stderr, "\n") != 1 {
			t.Errorf("ferry serve %q: %q is not one line", tt.args, stderr)
		}
	}
}

// -db-env reads the whole URL, and $FERRY_DB_PASSWORD a password the URL
// leaves out.
func TestServeDatabaseFromEnvironment(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	s := startServe(t, []string{"-db-env", "SHOP_DB", "-http", "127.0.0.1:0"}, "SHOP_DB", d.url)
	if got := s.tools(t).names(); len(got) != len(readTools) {
		t.Errorf("tools of the database named by $SHOP_DB: %v", got)
	}
	s = startServe(t, []string{"-http", "127.0.0.1:0"}, "FERRY_DB", "file:"+d.url)
	if got := s.tools(t).names(); len(got) != len(readTools) {
		t.Errorf("tools of the database named by $FERRY_DB: %v", got)
	}
}

// With both -api-key-env and -jwt-jwks, the first key's caller (named
// api-key-1) and a JWT whose sub is "api-key-1" are two callers: the JWT
// cannot use a session the key opened, and the calls the key spent do not
// count against it.
func TestServeCredentialKindsAreDifferentCallers(t *testing.T) {
	d := sqliteTestDB(t)
	d.shop(t)
	keys := newJWKSServer(t)
	const iss = "https://login.example.com"
	s := startServe(t, []string{"-db", d.url, "-http", "127.0.0.1:0", "-api-key-env", "SHOP_KEYS", "-jwt-jwks", keys.url, "-jwt-issuer", iss},
		"SHOP_KEYS", "k-one-1234567890")
	key := []string{"X-API-Key", "k-one-1234567890"}
	lookalike := []string{"Authorization", "Bearer " + keys.tokenOf(t, iss, s.url, "api-key-1", time.Hour)}

	session := s.legacyInitialize(t, "2025-06-18", key...)
	if status, _ := s.legacyPost(t, session, "2025-06-18", callJSON(2, "list_customers"), lookalike...); status != http.StatusNotFound {
		t.Errorf("a JWT with sub api-key-1 on api-key-1's session: status %d, want 404", status)
	}
	if status, body := s.legacyPost(t, session, "2025-06-18", callJSON(2, "list_customers"), key...); status != http.StatusOK || !contains(body, "Ada") {
		t.Errorf("api-key-1 on its own session: status %d: %s", status, body)
	}

	// Two batches of DefaultMaxBatchItems calls spend the key's burst
	// (DefaultCallBurst) well faster than DefaultCallRate refills it.
	batch := make([]string, ferry.DefaultMaxBatchItems)
	for i := range batch {
		batch[i] = callJSON(i+1, "list_customers")
	}
	session = s.legacyInitialize(t, "2025-03-26", key...)
	limited := 0
	for range 2 {
		_, body := s.legacyPost(t, session, "2025-03-26", "["+strings.Join(batch, ",")+"]", key...)
		limited = strings.Count(body, "too many calls")
	}
	if limited < ferry.DefaultMaxBatchItems/2 {
		t.Fatalf("the key's second batch: %d calls refused by the rate limit, want most of %d", limited, ferry.DefaultMaxBatchItems)
	}
	session = s.legacyInitialize(t, "2025-03-26", lookalike...)
	if _, body := s.legacyPost(t, session, "2025-03-26", "["+strings.Join(batch[:10], ",")+"]", lookalike...); strings.Count(body, `"isError":true`) != 0 {
		t.Errorf("a JWT with sub api-key-1, right after the key spent its calls: %d of 10 calls refused: %.300s", strings.Count(body, `"isError":true`), body)
	}
}

// callJSON is a JSON-RPC tools/call of tool without arguments.
func callJSON(id int, tool string) string {
	return `{"jsonrpc":"2.0","id":` + strconv.Itoa(id) + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

// legacyInitialize opens a session of version with the headers given as
// name, value pairs, and returns its id.
func (s *served) legacyInitialize(t *testing.T, version string, headers ...string) string {
	t.Helper()
	a := s.legacySend(t, "", version, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+version+
		`","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, headers...)
	if a.status != http.StatusOK || a.session == "" {
		t.Fatalf("initialize %s: status %d: %s", version, a.status, a.body)
	}
	return a.session
}

// legacyPost posts body on session and returns the status and the body
// of the answer.
func (s *served) legacyPost(t *testing.T, session, version, body string, headers ...string) (int, string) {
	t.Helper()
	a := s.legacySend(t, session, version, body, headers...)
	return a.status, a.body
}

// legacyAnswer is the answer to a legacy-era POST.
type legacyAnswer struct {
	status  int
	body    string
	session string // its Mcp-Session-Id header
}

// legacySend posts body on session (none when empty).
func (s *served) legacySend(t *testing.T, session, version, body string, headers ...string) legacyAnswer {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", version)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return legacyAnswer{status: resp.StatusCode, body: string(raw), session: resp.Header.Get("Mcp-Session-Id")}
}
