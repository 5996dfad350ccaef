package auth

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ferry-mcp/ferry"
)

// principal checks a verified token's claims at now and returns its
// caller.
func (j *JWT) principal(c map[string]any, now time.Time) (*ferry.Principal, error) {
	exp, err := j.checkTimes(c, now)
	if err != nil {
		return nil, err
	}
	if iss, _ := c["iss"].(string); iss != j.issuer {
		return nil, invalid(reasonTokenInvalid, fmt.Errorf("issuer %q is not %q", iss, j.issuer))
	}
	if !j.audienceMatches(c["aud"]) {
		return nil, invalid(reasonTokenInvalid, fmt.Errorf("audience %v is not this resource's", c["aud"]))
	}
	sub, _ := c["sub"].(string)
	if sub == "" {
		return nil, invalid(reasonTokenInvalid, errors.New("no sub claim"))
	}
	scopes, err := scopesOf(c)
	if err != nil {
		return nil, invalid(reasonTokenInvalid, err)
	}
	return &ferry.Principal{
		Subject: sub,
		Issuer:  j.issuer,
		Scopes:  scopes,
		Roles:   stringsOf(lookupPath(c, j.rolePath)),
		Expires: exp,
		Claims:  c,
	}, nil
}

// checkTimes checks exp (required), nbf and iat, and returns exp.
func (j *JWT) checkTimes(c map[string]any, now time.Time) (time.Time, error) {
	exp, ok, err := numericDate(c, "exp")
	switch {
	case err != nil:
		return time.Time{}, invalid(reasonTokenInvalid, err)
	case !ok:
		return time.Time{}, invalid(reasonTokenInvalid, errors.New("no exp claim"))
	case now.After(exp.Add(j.leeway)):
		return time.Time{}, invalid(reasonTokenExpired, fmt.Errorf("expired at %s", exp.Format(time.RFC3339)))
	}
	nbf, ok, err := numericDate(c, "nbf")
	switch {
	case err != nil:
		return time.Time{}, invalid(reasonTokenInvalid, err)
	case ok && now.Add(j.leeway).Before(nbf):
		return time.Time{}, invalid(reasonTokenNotYet, fmt.Errorf("not before %s", nbf.Format(time.RFC3339)))
	}
	iat, ok, err := numericDate(c, "iat")
	switch {
	case err != nil:
		return time.Time{}, invalid(reasonTokenInvalid, err)
	case ok && now.Add(j.leeway).Before(iat):
		return time.Time{}, invalid(reasonTokenInvalid, fmt.Errorf("issued in the future, at %s", iat.Format(time.RFC3339)))
	}
	return exp, nil
}

// numericDate reads a NumericDate claim: a JSON number of seconds.
func numericDate(c map[string]any, name string) (time.Time, bool, error) {
	v, ok := c[name]
	if !ok {
		return time.Time{}, false, nil
	}
	f, isNum := v.(float64)
	if !isNum || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1<<40 {
		return time.Time{}, false, fmt.Errorf("the %s claim is not a NumericDate", name)
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)), true, nil
}

// audienceMatches reports whether aud (a string or an array of them)
// holds one of the audiences.
func (j *JWT) audienceMatches(aud any) bool {
	switch aud := aud.(type) {
	case string:
		return slices.Contains(j.auds, canonicalAudience(aud))
	case []any:
		for _, a := range aud {
			if s, ok := a.(string); ok && slices.Contains(j.auds, canonicalAudience(s)) {
				return true
			}
		}
	}
	return false
}

// canonicalAudience drops a trailing slash and lowercases the scheme and
// host of a URL, so "HTTPS://MCP.example.com/mcp/" is
// "https://mcp.example.com/mcp"; another string is kept but for its
// trailing slash.
func canonicalAudience(a string) string {
	a = strings.TrimSuffix(a, "/")
	scheme, rest, ok := strings.Cut(a, "://")
	if !ok {
		return a
	}
	host, path, _ := strings.Cut(rest, "/")
	if path != "" {
		path = "/" + path
	}
	return strings.ToLower(scheme) + "://" + strings.ToLower(host) + path
}

// scopesOf reads scope (a space-separated string) or else scp (such a
// string, or an array of strings).
func scopesOf(c map[string]any) ([]string, error) {
	if v, ok := c["scope"]; ok {
		s, isString := v.(string)
		if !isString {
			return nil, errors.New("the scope claim is not a string")
		}
		return strings.Fields(s), nil
	}
	switch v := c["scp"].(type) {
	case nil:
		return nil, nil
	case string:
		return strings.Fields(v), nil
	case []any:
		return stringsOf(v), nil
	}
	return nil, errors.New("the scp claim is neither a string nor an array")
}

// lookupPath walks path into nested objects of c.
func lookupPath(c map[string]any, path []string) any {
	var v any = c
	for _, name := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[name]
	}
	return v
}

// stringsOf returns a string as one entry, and the strings of an array.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return nil
		}
		return []string{v}
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok && s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
