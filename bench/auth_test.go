package bench

import (
	"crypto/ecdsa"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/ferry-mcp/ferry"
	"github.com/ferry-mcp/ferry/auth"
	"github.com/ferry-mcp/ferry/bench/internal/wire"
)

// BenchmarkAuthToolsCall measures what authentication adds to a 2026-07-28
// tools/call through the real HTTP handler in process: "none" is the
// handler alone; "jwt_rs256" and "jwt_es256" verify a bearer JWT on every
// call (signature, claims, principal: TokenCacheSize -1), with the JWKS
// fetched once and cached; "_remembered" is the default, where a token
// verified once is remembered and only its times and key re-checked;
// "apikey" looks a key up in a StaticKeys.
func BenchmarkAuthToolsCall(b *testing.B) {
	rsaKey, ecKey := benchKeys(b)
	jwks, _ := json.Marshal(jose.JSONWebKeySet{Keys: []jose.JSONWebKey{
		{Key: &rsaKey.PublicKey, KeyID: "rsa", Algorithm: "RS256", Use: "sig"},
		{Key: &ecKey.PublicKey, KeyID: "ec", Algorithm: "ES256", Use: "sig"},
	}})
	idp := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(jwks) }))
	defer idp.Close()
	keys, err := auth.NewRemoteKeySet(idp.URL, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer keys.Close()
	if err := keys.Refresh(b.Context()); err != nil {
		b.Fatal(err)
	}
	const resource = "https://mcp.example.com/mcp"
	static, err := auth.NewStaticKeys(map[string]*ferry.Principal{"k-bench-0123456789": {Subject: "bench"}})
	if err != nil {
		b.Fatal(err)
	}
	newMiddleware := func(cacheSize int) func(http.Handler) http.Handler {
		tokens, err := auth.NewJWT(&auth.JWTOptions{Keys: keys, Issuer: "https://login.example.com", Audiences: []string{resource}, TokenCacheSize: cacheSize})
		if err != nil {
			b.Fatal(err)
		}
		return auth.Middleware(&auth.Options{Authenticators: []auth.Authenticator{tokens, auth.APIKeys(static.Lookup, nil)}})
	}
	verifying, remembering := newMiddleware(-1), newMiddleware(0)
	h := ferryImpl().Handler(false)
	payload := wire.AppendModernAddCall(nil, 2)

	b.Run("none", func(b *testing.B) { benchCall(b, h, modernHeader(), payload) })
	for _, tt := range []struct {
		name string
		alg  jose.SignatureAlgorithm
		key  any
		kid  string
	}{{"jwt_rs256", jose.RS256, rsaKey, "rsa"}, {"jwt_es256", jose.ES256, ecKey, "ec"}} {
		hdr := modernHeader()
		hdr.Set("Authorization", "Bearer "+benchToken(b, tt.alg, tt.key, tt.kid, resource))
		b.Run(tt.name, func(b *testing.B) { benchCall(b, verifying(h), hdr, payload) })
		b.Run(tt.name+"_remembered", func(b *testing.B) { benchCall(b, remembering(h), hdr, payload) })
	}
	b.Run("apikey", func(b *testing.B) {
		hdr := modernHeader()
		hdr.Set("X-API-Key", "k-bench-0123456789")
		benchCall(b, remembering(h), hdr, payload)
	})
}

func benchToken(b *testing.B, alg jose.SignatureAlgorithm, key any, kid, aud string) string {
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: jose.JSONWebKey{Key: key, KeyID: kid}}, (&jose.SignerOptions{}).WithType("at+jwt"))
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	tok, err := jwt.Signed(signer).Claims(map[string]any{
		"iss": "https://login.example.com", "aud": aud, "sub": "alice", "scope": "orders:read orders:write",
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(time.Hour).Unix(),
	}).Serialize()
	if err != nil {
		b.Fatal(err)
	}
	return tok
}

// benchKeyPEM holds an RSA-2048 and a P-256 key made for this benchmark
// only: fixed keys keep key generation, whose cost varies, out of the
// instruction counts of a run.
const benchKeyPEM = `-----BEGIN PRIVATE KEY-----
MIIEvAIBADANBgkqhkiG9w0BAQEFAASCBKYwggSiAgEAAoIBAQCtw8y6Ko7J7COf
FW5ol3NhTZiGrwuESoC3K+EB/tD0aXGTYYP3qzW5SCR+LzYACdBq+/P18klOTbyy
0e1TwnEu3xPDNIKvOWUH8VQaY5L9vWeBNCbgxOdAQcdUp08HJ9C9y+h+hqsk5CPx
zqDVvllhaDbk7icggwcxqROZbilif1nN8V2q3/HMgNs0ZYdDp9q7i+fnhJUfo2cg
RwXsLzqBgyX3wHWJsnbEhUj/QHO2RZPm0N6Dl4DbJuUarhsFBKM2yEwPvB04JHEU
HpIXb7HckJG+O1JY+dM90kQCDe0kp0ekOtmNGpF6KHTSwv5A1hc+7OfDXwQBIoy2
UXBEM/jZAgMBAAECggEAKLydvypRgeCwpC/Fy9Lvu4jRwIeCk2/U97xbepiG27np
pMPoiJR0mpyhY4zFY+JpIF+zfL4htfAPFDwXX7rWxoaJT0r89T/nIeLPlQUxlXeF
L7ruf2TiEwQoyz2TDyokK47FkX4YWuR6UcrflWST9zxTnD2B4kMdmWSaQe7b2GmA
R0c3AtyQ8040E81G8B2TlMig8ioXTrq8fSxxqPpoeoO8MGi76uF28azW7r+xWZiw
S5urLMUGFa8vhgTScaTrNf740MF788qI7NoPUdvI9bbFewzKAqcbnzrsYwkGQ7VZ
6DJ0XjcsIa8nUpdnVaWof8OTi3FQgVI8+eEGwiTrBQKBgQDbh8fPp5Gjq8E8Kt7a
19Z6StcErizUGQ/Ron8ZaS2wJlE1Z5x/q8OCuwswbI+bO5vnMZ8A2xRaJEWIZulb
UoMttLiTTT0mvGYbFcT5QexPWbgWDgAbgraS5dtH02gE/hAfduSjQUxlbzCDwUm2
ifmk+8Xx4ERvsWxsKdTtxXFDZQKBgQDKobIIccYmcOg4ZQppiHsEprz3AVuPzxhk
wI0UluY9ipDfXpwQO5N9ZY0H1rL1xkl8hCRtZyCI/OXqbR++vnNU/lQBhwlc29m3
Zcz/7X4KEJTscYo8tyk3alrSek/b5nbwXeJMGHgJMlC84f3PtYuA+NeiuOnm6lkR
mulYEQm6ZQKBgCmKMtvvOFbBHEp3Tj4Y02PGn5MqJh9oMp8XYXd8eIG5bmptlaZu
6Qrmu8JI+I+GIwUHVbACxIIeFO4vkv6NyXavmLF+zxByW9vKLcCAoeeN8ZByy8Bo
5oU7a1fW//rZ3FEn3TGrHHqhJIv52inpR8zZO2Z+alS8POjmrXzkfH8lAoGAbpr2
cA+Shpco2uekWFisNazCBt4R2ZzEhvJnz+5SfRMu4w5kh6PNbSxKYBX8l5WFtVb3
/1PEeaH56g1ov5h7odA1kKPiI3LKE4aY8LX1D49fivSq7VtZPytpqewjvTe+gpPs
m3bbxsFVOtTs0z0YiezK38Kpwmb2+VoitvSN59UCgYBdHqEdWOxDaPt5rQsZVcSC
hVvjMIxQS/Krn5ybS+ggCUf6aI+l1QXqSPrYX5Hpko8ewRFSbV0xwj7gKfHUBcRx
kTSTBo6zkJn/Htuh8wQvZ0aRLZQj6edNX1HFzwlAlWT7mbr7uGPZzGtWSMkdfHwj
CjNyjgGqCvRbrYS+sSWu7Q==
-----END PRIVATE KEY-----
-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgck3LhN0btQyYyx1i
d7Mxt5jqT/oGiwmGk9QDLTq2M32hRANCAAT+IwMyYtF8df1BNf+ULDpK4oqn6g8x
XH/gtOOcZ+Y2vxHZTHyUOegyVfzZKZUdWnVloMwzF7P+2/WMtYBcuHbR
-----END PRIVATE KEY-----
`

func benchKeys(b *testing.B) (*rsa.PrivateKey, *ecdsa.PrivateKey) {
	rest := []byte(benchKeyPEM)
	var keys []any
	for {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			b.Fatal(err)
		}
		keys = append(keys, k)
	}
	return keys[0].(*rsa.PrivateKey), keys[1].(*ecdsa.PrivateKey)
}
