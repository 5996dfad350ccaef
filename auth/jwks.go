package auth

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The defaults of [RemoteKeySetOptions].
const (
	DefaultJWKSTimeout         = 5 * time.Second
	DefaultJWKSMaxBytes        = 1 << 20
	DefaultJWKSRefreshInterval = time.Minute
	DefaultJWKSMaxAge          = 24 * time.Hour
	DefaultJWKSTTL             = time.Hour
)

// ErrKeysUnavailable is returned by a [RemoteKeySet] that has never
// fetched its JWKS successfully; a token it cannot check gets 503.
var ErrKeysUnavailable = errors.New("auth: the signing keys are unavailable")

// RemoteKeySetOptions configures [NewRemoteKeySet].
type RemoteKeySetOptions struct {
	// Client fetches the JWKS. If nil, a client of its own. Either way
	// a copy is used that follows at most 3 redirects, each held to the
	// rule of the JWKS URL (see [NewRemoteKeySet]), before the client's
	// own CheckRedirect is asked.
	Client *http.Client
	// Timeout bounds one fetch, body included. If zero,
	// [DefaultJWKSTimeout].
	Timeout time.Duration
	// MaxBytes bounds the JWKS document: a larger one is refused and the
	// last good set kept. If zero, [DefaultJWKSMaxBytes] (1 MiB).
	MaxBytes int64
	// RefreshInterval is the least time between two fetches, whatever
	// asks for them: a flood of tokens naming unknown kids costs one
	// fetch per interval. It is also the shortest time a set is cached.
	// If zero, [DefaultJWKSRefreshInterval] (1 minute).
	RefreshInterval time.Duration
	// MaxAge is the longest time a set is cached, whatever the response's
	// Cache-Control max-age says. If zero, [DefaultJWKSMaxAge] (24h).
	MaxAge time.Duration
	// TTL is how long a set is cached when the response has no max-age
	// (or says no-store or no-cache, which mean RefreshInterval). If zero,
	// [DefaultJWKSTTL] (1h). It is kept between RefreshInterval and MaxAge.
	TTL time.Duration
	// Logger receives a record for each failed fetch. If nil,
	// [slog.Default].
	Logger *slog.Logger
}

// RemoteKeySet is a [KeySet] fetched from a JWKS URL and cached. The first
// Key call fetches it (or call [RemoteKeySet.Refresh] at start-up). A set
// is refreshed when its cache time (Cache-Control max-age, within bounds)
// has passed, or when a token names a kid it does not hold, at most once
// per RefreshInterval and through a single fetch however many requests
// ask at once: they wait for it together (or for their own context). A
// request whose key is in a set past its cache time does not wait: the
// refresh runs beside it. When a fetch fails (the server down, slower
// than the timeout, a document too large or not a JWKS) the last good set
// is kept. No goroutine runs but a fetch, which Close ends. A
// RemoteKeySet is safe for concurrent use.
type RemoteKeySet struct {
	url    string
	opts   RemoteKeySetOptions
	ctx    context.Context //nolint:containedctx // the lifetime of fetches, which Close cancels
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below.
	mu      sync.Mutex
	set     *StaticKeySet // the last good set, or nil
	expires time.Time     // when set is stale
	tried   time.Time     // when the last fetch started
	flight  *flight       // the fetch under way, or nil
	closed  bool
}

// flight is one fetch; done is closed when it ends.
type flight struct {
	done chan struct{}
	err  error
}

// NewRemoteKeySet returns the key set at jwksURL, fetched lazily. The URL
// must be https (keys fetched over plain HTTP could be anyone's), or http
// on a loopback host ("localhost", 127.0.0.1, [::1]) for tests and
// sidecars; redirects are held to the same rule. Call Close when done
// with the set.
func NewRemoteKeySet(jwksURL string, opts *RemoteKeySetOptions) (*RemoteKeySet, error) {
	if err := checkKeySetURL(jwksURL); err != nil {
		return nil, err
	}
	s := &RemoteKeySet{url: jwksURL}
	if opts != nil {
		s.opts = *opts
	}
	o := &s.opts
	o.Timeout = orDefault(o.Timeout, DefaultJWKSTimeout)
	o.RefreshInterval = orDefault(o.RefreshInterval, DefaultJWKSRefreshInterval)
	o.MaxAge = max(orDefault(o.MaxAge, DefaultJWKSMaxAge), o.RefreshInterval)
	o.TTL = min(max(orDefault(o.TTL, DefaultJWKSTTL), o.RefreshInterval), o.MaxAge)
	if o.MaxBytes <= 0 {
		o.MaxBytes = DefaultJWKSMaxBytes
	}
	o.Client = holdRedirects(o.Client)
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	return s, nil
}

// holdRedirects returns a copy of c (or of a zero client) that follows at
// most 3 redirects, each to a URL [checkKeySetURL] allows, and then asks
// c's own CheckRedirect, if any.
func holdRedirects(c *http.Client) *http.Client {
	var held http.Client
	if c != nil {
		held = *c
	}
	own := held.CheckRedirect
	held.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		if len(via) > 3 { // via holds the first request and the redirects followed
			return errors.New("auth: too many redirects fetching a JWKS")
		}
		if err := checkKeySetURL(r.URL.String()); err != nil {
			return err
		}
		if own != nil {
			return own(r, via)
		}
		return nil
	}
	return &held
}

// checkKeySetURL allows https, and http on loopback.
func checkKeySetURL(s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return fmt.Errorf("auth: the JWKS URL %q is not an absolute URL", s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if h := u.Hostname(); h == "localhost" || net.ParseIP(h).IsLoopback() {
			return nil
		}
	}
	return fmt.Errorf("auth: the JWKS URL %q is neither https nor http on loopback", s)
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Key implements [KeySet].
func (s *RemoteKeySet) Key(ctx context.Context, kid, alg string) (Key, error) {
	s.mu.Lock()
	if s.set != nil {
		k, known := s.set.find(kid, alg)
		if k.Public != nil || known {
			if time.Now().After(s.expires) {
				s.startLocked()
			}
			s.mu.Unlock()
			return s.found(k, kid, alg)
		}
	}
	f := s.startLocked()
	s.mu.Unlock()
	if f != nil {
		select {
		case <-f.done:
		case <-ctx.Done():
			return Key{}, ctx.Err()
		}
	}
	s.mu.Lock()
	set := s.set
	s.mu.Unlock()
	if set == nil {
		return Key{}, ErrKeysUnavailable
	}
	k, _ := set.find(kid, alg)
	return s.found(k, kid, alg)
}

func (s *RemoteKeySet) found(k Key, kid, alg string) (Key, error) {
	if k.Public == nil {
		return Key{}, fmt.Errorf("%w: %q for %s", ErrUnknownKey, kid, alg)
	}
	return k, nil
}

// startLocked returns the fetch under way, or starts one if the last
// started RefreshInterval ago or more; it returns nil if it may not.
func (s *RemoteKeySet) startLocked() *flight {
	if s.flight != nil {
		return s.flight
	}
	now := time.Now()
	if s.closed || (!s.tried.IsZero() && now.Sub(s.tried) < s.opts.RefreshInterval) {
		return nil
	}
	s.tried = now
	f := &flight{done: make(chan struct{})}
	s.flight = f
	s.wg.Go(func() {
		set, ttl, err := s.fetch()
		s.mu.Lock()
		if err == nil {
			s.set, s.expires = set, time.Now().Add(ttl)
		}
		s.flight = nil
		s.mu.Unlock()
		if err != nil {
			s.opts.Logger.WarnContext(s.ctx, "auth: fetching the JWKS failed; the last good set is kept", "url", s.url, "err", err)
		}
		f.err = err
		close(f.done)
	})
	return f
}

// Refresh fetches the set now, unless a fetch started less than
// RefreshInterval ago, and returns the error of the fetch it waited for.
// Call it at start-up to fail fast on a wrong URL.
func (s *RemoteKeySet) Refresh(ctx context.Context) error {
	s.mu.Lock()
	f := s.startLocked()
	s.mu.Unlock()
	if f == nil {
		return nil
	}
	select {
	case <-f.done:
		return f.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close ends a fetch under way and waits for it; after Close the set
// keeps its keys but fetches no more.
func (s *RemoteKeySet) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.cancel()
	s.wg.Wait()
	return nil
}

// fetch gets and parses the JWKS, and returns how long to cache it.
func (s *RemoteKeySet) fetch() (*StaticKeySet, time.Duration, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("auth: JWKS request: %w", err)
	}
	req.Header.Set("Accept", "application/jwk-set+json, application/json")
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return nil, 0, fmt.Errorf("auth: fetching the JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("auth: fetching the JWKS: status %d", resp.StatusCode)
	}
	if resp.ContentLength > s.opts.MaxBytes {
		return nil, 0, fmt.Errorf("auth: the JWKS is %d bytes, more than %d", resp.ContentLength, s.opts.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, s.opts.MaxBytes+1))
	if err != nil {
		return nil, 0, fmt.Errorf("auth: reading the JWKS: %w", err)
	}
	if int64(len(body)) > s.opts.MaxBytes {
		return nil, 0, fmt.Errorf("auth: the JWKS is more than %d bytes", s.opts.MaxBytes)
	}
	set, err := ParseKeySet(body)
	if err != nil {
		return nil, 0, err
	}
	return set, s.ttl(resp.Header.Get("Cache-Control")), nil
}

// ttl reads a Cache-Control value into a cache time within bounds.
func (s *RemoteKeySet) ttl(cc string) time.Duration {
	ttl := s.opts.TTL
	for d := range strings.SplitSeq(cc, ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return s.opts.RefreshInterval
		case "max-age":
			if n, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64); err == nil && n >= 0 {
				ttl = time.Duration(min(n, int64(s.opts.MaxAge/time.Second))) * time.Second
			}
		}
	}
	return min(max(ttl, s.opts.RefreshInterval), s.opts.MaxAge)
}
