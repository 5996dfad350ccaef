package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/client"
)

// progressDelay is how long an operation runs before its progress line is
// printed.
const progressDelay = time.Second

// closeGrace is how long a client command may run past its work, and so
// past -timeout, to end the session: over HTTP, for the server to take
// the notice of a request given up and the DELETE of a legacy session;
// over stdio, half of it for the server to exit once its input is closed
// (it is killed then, or at -timeout), half for the pipes its children
// may still hold (see stdioWaitDelay).
const closeGrace = time.Second

// stdioWaitDelay is how long ferry waits, once a stdio server has exited
// or been killed, for the pipes its children may still hold.
const stdioWaitDelay = closeGrace / 2

// session is a client connected for one command, with what the command
// needs to report progress and failures.
type session struct {
	*client.Client
	parent       context.Context //nolint:containedctx // the process's context, to tell an interrupt from a timeout
	target       target
	flags        *clientFlags
	stderr       io.Writer // safe for concurrent use (a stdio child writes to it too)
	timeout      time.Duration
	credentialed bool // the requests carry headers from the flags or environment, or the URL a user
	// invalidHint follows an answer that the request's name or arguments
	// are wrong (-32602, or -32002 for a legacy unknown resource): where
	// to check what the command named.
	invalidHint string
}

// dial connects to t within the command's timeout, printing "connecting
// to ..." on stderr when it takes over a second. It returns the session
// and the context bounding the command; the caller calls stop when done.
// Its errors are exit errors: 2 for a bad flag value, 3 for a failure to
// connect.
func dial(ctx context.Context, t target, f *clientFlags, e *env) (s *session, cctx context.Context, stop func(), err error) {
	if err := f.checkProtocol(); err != nil {
		return nil, nil, nil, &exitError{code: exitUsage, err: err}
	}
	if f.timeout <= 0 {
		return nil, nil, nil, &exitError{code: exitUsage, err: fmt.Errorf("-timeout %v: give a duration above 0, such as 30s", f.timeout)}
	}
	header, err := f.header(e.getenv)
	if err != nil {
		return nil, nil, nil, &exitError{code: exitUsage, err: err}
	}
	stderr := &lockedWriter{w: e.stderr}
	cctx, cancel := context.WithTimeout(ctx, f.timeout)
	opts := &client.Options{Protocol: f.protocol, Header: header, Name: "ferry", Version: version(), Limits: client.Limits{CloseTimeout: closeGrace}}
	var tr *http.Transport
	if t.url != "" {
		// The client bounds each message and the pages of a list; the
		// budget bounds their sum, so that a hostile server cannot make
		// one command (lint reads four lists) hold gigabytes.
		tr = http.DefaultTransport.(*http.Transport).Clone()
		opts.HTTPClient = &http.Client{Transport: newBudgetTransport(tr, receiveBudget), CheckRedirect: sameOrigin}
	}
	s = &session{parent: ctx, target: t, flags: f, stderr: stderr, timeout: f.timeout, credentialed: len(header) > 0 || hasUserInfo(t.url)}
	done := s.progress("connecting to " + t.String())
	if t.url != "" {
		s.Client, err = client.DialHTTP(cctx, t.url, opts)
	} else {
		// The child lives no longer than the command: past -timeout it is killed.
		cmd := exec.CommandContext(cctx, t.command[0], t.command[1:]...) //nolint:gosec // the user's own command line
		cmd.Stderr = &escapingWriter{w: stderr}
		// A server that leaves a child behind holding its output (a shell
		// script's background job) would keep Wait, and ferry, waiting
		// for the pipes to close: past this delay they are closed.
		cmd.WaitDelay = stdioWaitDelay
		opts.Limits.CloseTimeout = closeGrace - stdioWaitDelay
		s.Client, err = client.DialCommand(cctx, cmd, opts)
	}
	done()
	closeIdle := func() {
		if tr != nil {
			tr.CloseIdleConnections()
		}
	}
	if err != nil {
		cancel()
		closeIdle()
		return nil, nil, nil, s.failure(cctx, "connecting to "+t.String(), err)
	}
	stop = func() {
		_ = s.Close() // the command's outcome is decided; a child's exit status adds nothing
		cancel()
		closeIdle()
	}
	return s, cctx, stop, nil
}

// progress prints "ferry: what ..." on stderr if the returned function is
// not called within progressDelay, unless -quiet.
func (s *session) progress(what string) (done func()) {
	if s.flags.quiet {
		return func() {}
	}
	stopped := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTimer(progressDelay)
		defer t.Stop()
		select {
		case <-t.C:
			fmt.Fprintf(s.stderr, "ferry: %s ...\n", what)
		case <-stopped:
		}
	})
	return func() {
		close(stopped)
		wg.Wait()
	}
}

// failure turns an error of the client into an exit error with a hint: 3,
// since the server could not be reached or broke the protocol.
func (s *session) failure(ctx context.Context, doing string, err error) error {
	var rpc *client.Error
	var status *client.StatusError
	var over *overBudgetError
	var hint string
	switch {
	case s.parent.Err() != nil:
		return protocolError(fmt.Errorf("%s: interrupted", doing))
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return protocolError(fmt.Errorf("%s: no answer within %v; raise -timeout if the server is slow", doing, s.timeout))
	case errors.As(err, &rpc):
		hint = s.rpcHint(rpc)
		if h := s.statusHint(rpc.HTTPStatus()); h != "" {
			hint = h
		}
		if rpc.HTTPStatus() == http.StatusForbidden && refusedHost(rpc.Message) {
			hint = "; the server does not serve this host name: use the address it listens on, or have it allow the name (ferry serve -allow-host)"
		}
		status := ""
		if rpc.HTTPStatus() != 0 && rpc.HTTPStatus() != http.StatusOK {
			status = fmt.Sprintf(" (HTTP %d)", rpc.HTTPStatus())
		}
		err := fmt.Errorf("%s: the server answered error %d%s: %s%s", doing, rpc.Code, status, shownMessage(rpc.Message), hint)
		if rpc.Code == ferry.CodeMissingClientCapability {
			// The server is fine and the tool exists: this client cannot
			// do what it needs, which is a failure of the command (1).
			err = fmt.Errorf("%s: the server answered error %d%s: %s; ferry cannot answer a tool's questions to the user or the client's model (elicitation, sampling, roots): call this tool from a client that can",
				doing, rpc.Code, status, shownMessage(rpc.Message))
			return &exitError{code: exitFailed, err: err}
		}
		return protocolError(err)
	case errors.As(err, &status):
		hint = s.statusHint(status.StatusCode)
	case errors.As(err, &over):
		return protocolError(fmt.Errorf("%s: %w; no MCP server needs that much for a command", doing, over))
	case errors.Is(err, syscall.ECONNREFUSED):
		hint = "; is the server running, and is the address right?"
	case isDNSError(err):
		hint = "; check the host name"
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, os.ErrNotExist) && s.target.url == "",
		errors.Is(err, os.ErrPermission) && s.target.url == "":
		hint = "; check the command after \"--\""
	}
	return protocolError(fmt.Errorf("%s: %s%s", doing, shownMessage(strings.TrimPrefix(err.Error(), "client: ")), hint))
}

// maxShownMessage bounds, in characters, what an error line shows of a
// message from the server, so that the hint after it stays in sight.
const maxShownMessage = 400

// shownMessage is a server's message as an error line shows it: on one
// line, its unsafe runes escaped, and cut after maxShownMessage
// characters.
func shownMessage(msg string) string {
	if utf8.RuneCountInString(msg) > maxShownMessage {
		msg = string([]rune(msg)[:maxShownMessage]) + "..."
	}
	return oneLine(msg)
}

// refusedHost reports whether a 403 answer's message says the request's
// Host or Origin was refused (DNS rebinding protection), which no
// credential changes.
func refusedHost(msg string) bool {
	return strings.Contains(msg, "Host is not allowed") || strings.Contains(msg, "Origin is not allowed")
}

func isDNSError(err error) bool {
	var dns *net.DNSError
	return errors.As(err, &dns)
}

// rpcHint suggests what to do about a JSON-RPC error.
func (s *session) rpcHint(e *client.Error) string {
	switch e.Code {
	case ferry.CodeMethodNotFound:
		return "; the server does not offer this"
	case ferry.CodeInvalidParams, ferry.CodeResourceNotFound:
		if s.invalidHint != "" {
			return s.invalidHint
		}
		return "; check the name and arguments"
	case ferry.CodeUnsupportedProtocolVersion:
		return "; try another -protocol, or none"
	}
	return ""
}

// statusHint suggests what to do about an HTTP status without a JSON-RPC
// answer, or with one that refuses the request.
func (s *session) statusHint(code int) string {
	switch {
	case (code == http.StatusUnauthorized || code == http.StatusForbidden) && !s.credentialed:
		return "; the server needs credentials: pass them with -header, -header-env or " + tokenEnv
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return "; the server refused the credentials sent (-header, -header-env, " + tokenEnv + "): check them"
	case code == http.StatusNotFound || code == http.StatusMethodNotAllowed:
		return "; no MCP endpoint at this URL: check the path (often /mcp)"
	}
	return ""
}

// maxRedirects bounds the redirects one request follows.
const maxRedirects = 5

// sameOrigin is the HTTP client's redirect policy: a redirect is followed
// only to the same scheme, host and port, since the headers from -header,
// -header-env and FERRY_TOKEN go with it (net/http drops Authorization
// for another host, but not X-API-Key and the like).
func sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	switch {
	case req.URL.Scheme != first.Scheme || req.URL.Host != first.Host:
		return fmt.Errorf("the server redirects to %s, another origin, where ferry sends no credentials; if it is the right server, give that URL as TARGET", req.URL.Redacted())
	case len(via) >= maxRedirects:
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	return nil
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex // guards w
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// hasUserInfo reports whether rawURL names a user (basic auth).
func hasUserInfo(rawURL string) bool {
	u, err := url.Parse(rawURL)
	return err == nil && u.User != nil
}
