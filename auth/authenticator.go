package auth

import (
	"errors"
	"net/http"

	"github.com/ferry-mcp/ferry"
)

// Authenticator checks one kind of credential on a request: a bearer JWT,
// an API key. [Middleware] asks its authenticators in order, and the first
// that finds a credential of its kind decides.
//
// Authenticate returns the caller for a credential it accepts. It returns
// an error matching [ErrNoCredential] when the request carries no
// credential of its kind (the next authenticator is asked), an
// [*InvalidCredentialError] when it carries one and refuses it (the request
// gets 401), and any other error when it could not decide (a key store or
// key set that does not answer: the request gets 503). It must never return
// a nil principal with a nil error. Authenticate is called concurrently.
//
// The principal's Issuer says who vouched for its Subject ([JWT] gives
// the token's iss, [APIKeys] [APIKeyIssuer]): ferry tells callers apart by
// both, so that the callers of two authenticators are one caller only
// when they are meant to be.
type Authenticator interface {
	Authenticate(r *http.Request) (*ferry.Principal, error)
}

// ErrNoCredential is returned by an [Authenticator] when a request carries
// no credential of its kind.
var ErrNoCredential = errors.New("auth: no credential")

// ErrInvalidCredential matches every [*InvalidCredentialError] (with
// [errors.Is]): a credential was sent and refused.
var ErrInvalidCredential = errors.New("auth: invalid credential")

// InvalidCredentialError is a credential an [Authenticator] found and
// refused. The client reads Reason (as the challenge's error_description);
// only the log reads Err.
type InvalidCredentialError struct {
	// Reason is a short lowercase phrase safe to show the client, which
	// says what is wrong without helping a forger: "the token has
	// expired", "the token is invalid".
	Reason string
	// Err is the detailed cause, for the log. It never holds the
	// credential itself.
	Err error
}

// Error implements error.
func (e *InvalidCredentialError) Error() string {
	msg := "auth: invalid credential: " + e.Reason
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Unwrap returns the detailed cause.
func (e *InvalidCredentialError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalidCredential].
func (e *InvalidCredentialError) Is(target error) bool { return target == ErrInvalidCredential }

// The reasons a client may read.
const (
	reasonTokenInvalid = "the token is invalid"
	reasonTokenExpired = "the token has expired"
	reasonTokenNotYet  = "the token is not yet valid"
	reasonKeyInvalid   = "the API key is invalid"
	reasonKeyExpired   = "the API key has expired"
	reasonMalformed    = "the Authorization header is malformed"
	reasonNotAccepted  = "the credential is not accepted"
)

// invalid returns an [*InvalidCredentialError] with reason and cause.
func invalid(reason string, cause error) error {
	return &InvalidCredentialError{Reason: reason, Err: cause}
}
