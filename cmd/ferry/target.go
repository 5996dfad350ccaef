package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"
	"time"
)

// targetHelp is the part of the usage that the client commands (tools,
// call, prompts, prompt, resources, read, lint) share: what TARGET is and
// how credentials are passed.
const targetHelp = `TARGET is an http:// or https:// URL of a Streamable HTTP endpoint
(http://127.0.0.1:8080/mcp), or "--" followed by the command of a stdio
server, which ends the command line:

  ferry tools http://127.0.0.1:8080/mcp
  ferry tools -- go run ./conformance/everything

Flags may come before or after the other arguments, never after "--".

Credentials: -header 'Name: value' (repeatable) adds a header to every HTTP
request. To keep a secret out of the command line and shell history, put
it in the environment: -header-env NAME (repeatable) adds the header line
"Name: value" held by the variable NAME, and FERRY_TOKEN, when set, sends
"Authorization: Bearer $FERRY_TOKEN" unless a header flag sets
Authorization itself.

Protocol: -protocol "" (the default) asks server/discover (2026-07-28)
first and falls back to initialize (the newest legacy version the server
offers) when the server does not answer it; a version forces that era.

Timeout: -timeout D bounds the whole command, connecting included. Past
D, ferry gives the server at most a second more to take the cancellation
and end the session (a legacy HTTP session's DELETE; a stdio server is
killed at D), so the command ends within D plus 1s.

Output: what the server sends that could drive a terminal or disguise
text (control characters such as ESC and U+009B, bidirectional overrides
such as U+202E, zero-width characters, U+2028) is escaped. In the JSON on
stdout it is a \u escape, which decodes to the same text, whether stdout
is a terminal or a pipe; in the messages on stderr, and in a stdio
server's own stderr, it reads as Go writes it (\x1b, \u202e).

Exit codes: 0 success, 1 failure (call: the tool returned an error result;
lint: problems found), 2 usage, 3 connection or protocol failure (the
server could not be reached, timed out, or answered with an error).

flags:
`

// tokenEnv is the environment variable whose value, when set, is sent as a
// bearer token.
const tokenEnv = "FERRY_TOKEN"

// protocols lists the versions -protocol accepts besides "".
var protocols = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}

// clientFlags are the flags of every command that talks to a server.
type clientFlags struct {
	headers   multiFlag
	headerEnv multiFlag
	protocol  string
	timeout   time.Duration
	quiet     bool
}

// register adds the flags to fs.
func (f *clientFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.headers, "header", "add the HTTP header `'Name: value'` to every request (repeatable)")
	fs.Var(&f.headerEnv, "header-env", "add the header line \"Name: value\" held by the environment variable `NAME` (repeatable)")
	fs.StringVar(&f.protocol, "protocol", "", "the protocol `version`: "+strings.Join(protocols, ", ")+`; "" tries 2026-07-28, then legacy`)
	fs.DurationVar(&f.timeout, "timeout", 30*time.Second, "give up after this long, connecting included; ending the session may take 1s more")
	fs.BoolVar(&f.quiet, "quiet", false, "print no progress line on stderr")
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, ", ") }

func (m *multiFlag) Set(v string) error {
	*m = append(*m, v)
	return nil
}

// target is the server a command talks to: a URL or a stdio command.
type target struct {
	url     string
	shown   string // the URL as messages show it, its password hidden
	command []string
}

// String names the target in messages.
func (t target) String() string {
	if t.url != "" {
		return t.shown
	}
	return strings.Join(t.command, " ")
}

// parseClientArgs parses the command line of a client command: flags, then
// positional arguments, with the stdio command after "--". Flags may be
// interspersed with the positional arguments before "--". It returns the
// positional arguments and the command (nil without "--"). Errors are
// usage errors, already printed with the usage.
func parseClientArgs(fs *flag.FlagSet, args []string, help string, e *env) (positional, command []string, err error) {
	if i := slices.Index(args, "--"); i >= 0 {
		args, command = args[:i], args[i+1:]
		if len(command) == 0 || command[0] == "" {
			return nil, nil, usagef(fs, help, e, `"--" must be followed by the stdio server's command`)
		}
	}
	for {
		if err := parseFlags(fs, args, help, e.stdout, e.stderr); err != nil {
			return nil, nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, command, nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

// usagef prints a problem of a client command's line (prefixed with the
// command's name) and the usage to stderr, and returns errUsage.
func usagef(fs *flag.FlagSet, help string, e *env, format string, args ...any) error {
	fmt.Fprintf(e.stderr, "ferry: %s: %s\n", fs.Name(), fmt.Sprintf(format, args...))
	printUsage(fs, help, e.stderr)
	return errUsage
}

// splitTarget takes the target from the positional arguments: the first
// one, a URL, unless command holds a stdio command. It returns the target
// and the positional arguments after it.
func splitTarget(positional, command []string) (target, []string, error) {
	if command != nil {
		return target{command: command}, positional, nil
	}
	if len(positional) == 0 {
		return target{}, nil, errors.New(`no TARGET: give a server's http(s):// URL, or "--" and a stdio server's command`)
	}
	u, err := url.Parse(positional[0])
	switch {
	case err != nil:
		// The parser's reason may quote the password (an "invalid port"
		// that is one), so it is left out.
		return target{}, nil, fmt.Errorf(`TARGET %q cannot be read as a URL; give a server's http(s):// URL, or "--" and a stdio server's command`, redactRawURL(positional[0]))
	case u.Scheme != "http" && u.Scheme != "https":
		return target{}, nil, fmt.Errorf(`TARGET %q is not an http:// or https:// URL; for a stdio server, put its command after "--"`, u.Redacted())
	case u.Host == "":
		return target{}, nil, fmt.Errorf(`TARGET %q has no host; write it as http://HOST:PORT/mcp`, u.Redacted())
	}
	return target{url: u.String(), shown: u.Redacted()}, positional[1:], nil
}

// redactRawURL hides what may be a user's password in a string that is
// not a valid URL: everything between "://" and the last "@".
func redactRawURL(raw string) string {
	at := strings.LastIndexByte(raw, '@')
	if at < 0 {
		return raw
	}
	start := 0
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		start = i + len("://")
	}
	return raw[:start] + "xxxxx" + raw[at:]
}

// header builds the headers every request carries from the flags and the
// environment. A malformed line is a usage error.
func (f *clientFlags) header(getenv func(string) string) (http.Header, error) {
	h := http.Header{}
	add := func(line, from string) error {
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		value = strings.TrimSpace(value)
		if !ok || !validHeaderName(name) || !validHeaderValue(value) {
			return fmt.Errorf(`%s is not a header line "Name: value" (printable characters, no line breaks or control characters)`, from)
		}
		name = textproto.CanonicalMIMEHeaderKey(name)
		if ownHeader(name) {
			return fmt.Errorf("%s: ferry sets %s itself (-protocol chooses the version); leave it out", from, name)
		}
		h.Add(name, value)
		return nil
	}
	for _, line := range f.headers {
		// The value may be a secret: the message quotes only the name, and
		// nothing of a line without a colon (it may be a bare token).
		from := "a -header value (it has no ':')"
		if name, _, ok := strings.Cut(line, ":"); ok {
			from = fmt.Sprintf("-header %q", strings.TrimSpace(name)+": ...")
		}
		if err := add(line, from); err != nil {
			return nil, err
		}
	}
	for _, name := range f.headerEnv {
		line := getenv(name)
		if line == "" {
			return nil, fmt.Errorf("-header-env %s: the environment variable %s is empty or not set", name, name)
		}
		if err := add(line, "the environment variable "+name); err != nil {
			return nil, err
		}
	}
	if token := getenv(tokenEnv); token != "" && h.Get("Authorization") == "" {
		if !validHeaderValue(token) {
			return nil, fmt.Errorf("%s holds a line break or another control character; it must be a bare token", tokenEnv)
		}
		h.Set("Authorization", "Bearer "+strings.TrimSpace(token))
	}
	return h, nil
}

// validHeaderValue reports whether value is an HTTP field value of RFC
// 9110: visible characters, spaces and tabs, and bytes beyond ASCII; a
// control character would fail the request later, or split it.
func validHeaderValue(value string) bool {
	for _, c := range []byte(value) {
		if (c < ' ' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// ownHeader reports whether the canonical header name is one ferry or
// net/http sets from the request itself, which a -header would silently
// lose to, or fight with.
func ownHeader(name string) bool {
	switch name {
	case "Host", "Content-Length", "Transfer-Encoding", "Connection", "Content-Type", "Accept":
		return true
	}
	return strings.HasPrefix(name, "Mcp-")
}

// validHeaderName reports whether name is an HTTP header field name (a
// token of RFC 9110).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

// checkProtocol returns a usage problem with -protocol, or nil.
func (f *clientFlags) checkProtocol() error {
	if f.protocol == "" || slices.Contains(protocols, f.protocol) {
		return nil
	}
	return fmt.Errorf(`-protocol %q is not a version ferry speaks; use one of %s, or "" to let the server choose`, f.protocol, strings.Join(protocols, ", "))
}

// maxStdin bounds the JSON read from stdin.
const maxStdin = 16 << 20

// readAll reads r up to limit bytes and fails beyond.
func readAll(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("more than %d bytes", limit)
	}
	return data, nil
}
