package auth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
)

// DefaultLeeway is the clock skew [JWTOptions.Leeway] allows by default.
const DefaultLeeway = 30 * time.Second

// DefaultRolesClaim is the claim [JWT] reads roles from by default.
const DefaultRolesClaim = "roles"

// defaultAlgorithms are the signature algorithms [JWT] accepts by default.
var defaultAlgorithms = []string{"RS256", "ES256"}

// JWTOptions configures [NewJWT].
type JWTOptions struct {
	// Keys verifies signatures: a [*RemoteKeySet] (a JWKS URL) or a
	// [*StaticKeySet]. Required.
	Keys KeySet
	// Issuer is the authorization server's issuer identifier, which the
	// iss claim must equal exactly. Required.
	Issuer string
	// Audiences lists the values one of which the aud claim must hold:
	// this server's resource URI ([Resource.URI]), or the API identifier
	// some authorization servers put there instead. They are compared
	// without a trailing slash, and with scheme and host in lower case.
	// Required.
	Audiences []string
	// Algorithms lists the signature algorithms accepted, among RS256,
	// RS384, RS512, PS256, PS384, PS512, ES256, ES384, ES512 and EdDSA. If
	// empty, RS256 and ES256. HMAC algorithms and none cannot be allowed.
	Algorithms []string
	// Leeway is the clock skew allowed when checking exp, nbf and iat. If
	// zero, [DefaultLeeway] (30s); at most 5 minutes.
	Leeway time.Duration
	// RequireType, if set, accepts only tokens whose typ header is at+jwt
	// (RFC 9068 access tokens), which keeps an ID token from being used as
	// an access token.
	RequireType bool
	// TokenCacheSize is how many verified tokens are remembered, so that
	// a client sending the same token on each request pays for one
	// signature check: a remembered token is still checked on each
	// request for its times (exp, nbf) and for its signing key being in
	// the key set, unchanged, so it is refused exactly when verifying it
	// again would refuse it. Requests with one token then share one
	// [ferry.Principal], which is read-only. If zero,
	// [DefaultTokenCacheSize]; if negative, every request verifies its
	// token's signature.
	TokenCacheSize int
	// RolesClaim names the claim that lists the caller's roles, a string
	// or an array of strings; dots walk into objects
	// ("realm_access.roles"). If empty, [DefaultRolesClaim].
	RolesClaim string
}

// JWT is an [Authenticator] of JWT bearer access tokens (RFC 9068),
// verified against a [KeySet]. A token is accepted when:
//
//   - it is a compact JWS signed with an allowed algorithm, by a key of
//     the set whose alg (if it has one) is the token's, and whose type
//     fits the algorithm; it is at most [MaxTokenBytes];
//   - exp is present and not past (with the leeway), nbf (if present) is
//     not ahead, iat (if present) is not ahead; times are numbers;
//   - iss is the issuer; aud holds one of the audiences; sub is a
//     non-empty string; and typ is at+jwt if RequireType is set.
//
// The principal has Subject sub, Issuer iss, Scopes from scope (a space-separated
// string) or else scp (a string or an array), Roles from the roles claim,
// Expires exp, and Claims the whole claim set. A bearer token that is not
// shaped as a JWT (three dot-separated parts) is left to the next
// authenticator. A JWT is safe for concurrent use.
type JWT struct {
	keys     KeySet
	issuer   string
	auds     []string
	algs     []jose.SignatureAlgorithm
	leeway   time.Duration
	typ      bool
	rolePath []string
	cache    *tokenCache // nil if disabled
}

// NewJWT returns the authenticator, or an error naming a missing or
// invalid option.
func NewJWT(opts *JWTOptions) (*JWT, error) {
	if opts == nil || opts.Keys == nil || opts.Issuer == "" || len(opts.Audiences) == 0 {
		return nil, errors.New("auth: a JWT authenticator needs Keys, an Issuer and Audiences")
	}
	if opts.Issuer == APIKeyIssuer {
		return nil, fmt.Errorf("auth: the issuer %q is the one API keys' callers have: tokens of that issuer would be their callers", APIKeyIssuer)
	}
	j := &JWT{keys: opts.Keys, issuer: opts.Issuer, leeway: opts.Leeway, typ: opts.RequireType, cache: newTokenCache(opts.TokenCacheSize)}
	for _, a := range opts.Audiences {
		if a == "" {
			return nil, errors.New("auth: an empty audience")
		}
		j.auds = append(j.auds, canonicalAudience(a))
	}
	names := opts.Algorithms
	if len(names) == 0 {
		names = defaultAlgorithms
	}
	for _, n := range names {
		alg, ok := asymmetric[n]
		if !ok {
			return nil, fmt.Errorf("auth: %q is not an asymmetric signature algorithm this package accepts", n)
		}
		j.algs = append(j.algs, alg)
	}
	if j.leeway <= 0 {
		j.leeway = DefaultLeeway
	}
	j.leeway = min(j.leeway, 5*time.Minute)
	claim := opts.RolesClaim
	if claim == "" {
		claim = DefaultRolesClaim
	}
	j.rolePath = strings.Split(claim, ".")
	return j, nil
}

// Authenticate implements [Authenticator].
func (j *JWT) Authenticate(r *http.Request) (*ferry.Principal, error) {
	raw, err := BearerToken(r.Header)
	if err != nil {
		return nil, err
	}
	if strings.Count(raw, ".") != 2 {
		return nil, ErrNoCredential
	}
	if j.cache == nil {
		v, err := j.verify(r.Context(), raw)
		if err != nil {
			return nil, err
		}
		return v.p, nil
	}
	d := sum(raw)
	if v := j.cache.get(d); v != nil {
		p, err := j.recheck(r.Context(), v)
		if err == nil {
			return p, nil
		}
		j.cache.drop(d)
		if !errors.Is(err, errKeyChanged) {
			return nil, err
		}
	}
	v, err := j.verify(r.Context(), raw)
	if err != nil {
		return nil, err
	}
	j.cache.put(d, v)
	return v.p, nil
}

// errKeyChanged says a remembered token's key left the key set or changed:
// the token is verified again.
var errKeyChanged = errors.New("auth: the signing key changed")

// recheck checks a remembered token for what may have changed since it
// was verified.
func (j *JWT) recheck(ctx context.Context, v *verified) (*ferry.Principal, error) {
	now := time.Now()
	if now.After(v.p.Expires.Add(j.leeway)) {
		return nil, invalid(reasonTokenExpired, fmt.Errorf("expired at %s", v.p.Expires.Format(time.RFC3339)))
	}
	if !v.nbf.IsZero() && now.Add(j.leeway).Before(v.nbf) {
		return nil, invalid(reasonTokenNotYet, fmt.Errorf("not before %s", v.nbf.Format(time.RFC3339)))
	}
	key, err := j.keys.Key(ctx, v.kid, v.alg)
	if err != nil || !sameKey(key.Public, v.pub) {
		return nil, errKeyChanged
	}
	return v.p, nil
}

// verify checks the token's signature and claims.
func (j *JWT) verify(ctx context.Context, raw string) (*verified, error) {
	tok, err := jwt.ParseSigned(raw, j.algs)
	if err != nil {
		return nil, invalid(reasonTokenInvalid, fmt.Errorf("parsing the JWT: %w", err))
	}
	h := tok.Headers[0]
	if j.typ && !isAccessTokenType(h.ExtraHeaders[jose.HeaderType]) {
		return nil, invalid(reasonTokenInvalid, errors.New("the typ header is not at+jwt"))
	}
	key, err := j.keys.Key(ctx, h.KeyID, h.Algorithm)
	if errors.Is(err, ErrUnknownKey) {
		return nil, invalid(reasonTokenInvalid, err)
	}
	if err != nil {
		return nil, err
	}
	// Key fits the algorithm (KeySet's contract); check again, since a
	// KeySet may be the user's own.
	if (key.Algorithm != "" && key.Algorithm != h.Algorithm) || !fits(h.Algorithm, key.Public) {
		return nil, invalid(reasonTokenInvalid, fmt.Errorf("key %q does not verify %s", key.ID, h.Algorithm))
	}
	var claims map[string]any
	if err := tok.Claims(key.Public, &claims); err != nil {
		return nil, invalid(reasonTokenInvalid, fmt.Errorf("verifying the JWT: %w", err))
	}
	p, err := j.principal(claims, time.Now())
	if err != nil {
		return nil, err
	}
	nbf, _, _ := numericDate(claims, "nbf")
	return &verified{p: p, kid: h.KeyID, alg: h.Algorithm, pub: key.Public, nbf: nbf}, nil
}

func isAccessTokenType(v any) bool {
	s, _ := v.(string)
	return strings.EqualFold(s, "at+jwt") || strings.EqualFold(s, "application/at+jwt")
}
