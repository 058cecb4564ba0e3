package auth_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// forger builds the tokens of the hostile-token table: a realm token for
// jobs-admin, changed one way at a time, signed with the realm key unless a
// case says otherwise.
type forger struct {
	t        *testing.T
	idp      *devidptest.IdP
	attacker *devidptest.IdP
	now      int64
}

// at returns now+d as a NumericDate.
func (f *forger) at(d time.Duration) int64 { return f.now + int64(d/time.Second) }

// claims returns the control claims with changes applied (nil removes one).
func (f *forger) claims(changes map[string]any) map[string]any {
	base := map[string]any{
		"iss": f.idp.Issuer(), "aud": "api-gateway", "azp": "jobs-admin", "typ": "Bearer",
		"scope": "jobs:read jobs:write", "department": "trabalho", "sub": "service-account-jobs-admin",
		"exp": f.at(5 * time.Minute), "iat": f.now, "jti": "0b8e7c52-6f0e-4a53-9d9a-3f1f2d3c4b5a",
	}
	return withClaims(base, changes)
}

// header returns the control header with changes applied (nil removes one).
func (f *forger) header(changes map[string]any) map[string]any {
	return withClaims(map[string]any{"alg": "RS256", "typ": "JWT", "kid": f.idp.KeyID()}, changes)
}

// sign signs the JSON of header and claims with the realm key.
func (f *forger) sign(header, claims map[string]any) string {
	return f.idp.SignJSON(f.t, mustJSON(f.t, header), mustJSON(f.t, claims))
}

// signRaw signs raw JSON texts after replacing <issuer>, <kid>, {{now}} and {{now+300}}.
func (f *forger) signRaw(header, claims string) string {
	r := strings.NewReplacer("<issuer>", f.idp.Issuer(), "<kid>", f.idp.KeyID(),
		"{{now}}", strconv.FormatInt(f.now, 10), "{{now+300}}", strconv.FormatInt(f.at(5*time.Minute), 10))
	return f.idp.SignJSON(f.t, []byte(r.Replace(header)), []byte(r.Replace(claims)))
}

// control is the well-formed token every case departs from.
func (f *forger) control() string { return f.sign(f.header(nil), f.claims(nil)) }

// withSignature replaces the signature segment of tok.
func withSignature(tok, sig string) string {
	return tok[:strings.LastIndex(tok, ".")+1] + sig
}

// segments maps every segment of tok through fn.
func segments(tok string, fn func(string) string) string {
	parts := strings.Split(tok, ".")
	for i := range parts {
		parts[i] = fn(parts[i])
	}
	return strings.Join(parts, ".")
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func randomB64(t *testing.T, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// nested returns open*n + leaf + close*n as raw JSON.
func nested(n int, open, leaf, close string) json.RawMessage {
	return json.RawMessage(strings.Repeat(open, n) + leaf + strings.Repeat(close, n))
}

// TestHostileTokens runs the hostile-token cases, written from the API
// document alone, against the verifier the gateway and both services share:
// every "reject" is a 401 with an invalid_token challenge.
func TestHostileTokens(t *testing.T) {
	idp := devidptest.Start(t)
	f := &forger{t: t, idp: idp, attacker: devidptest.Start(t), now: time.Now().Unix()}
	v := newVerifier(t, idp, newClock(time.Unix(f.now, 0)))
	minute := time.Minute
	c := func(changes map[string]any) string { return f.sign(f.header(nil), f.claims(changes)) }
	h := func(changes map[string]any) string { return f.sign(f.header(changes), f.claims(nil)) }
	attacker := func(header map[string]any) string {
		return f.attacker.SignRaw(t, f.claims(nil), f.header(header))
	}
	control := f.control()
	sig := control[strings.LastIndex(control, ".")+1:]

	tests := []struct {
		why    string
		token  string
		accept bool
	}{
		{"control: a well-formed realm token for jobs-admin", control, true},
		{"control: aud as an array containing api-gateway", c(map[string]any{"aud": []string{"account", "api-gateway"}}), true},
		{"control: nbf in the past is fine", c(map[string]any{"nbf": f.at(-minute)}), true},
		{"control: member names written with \\u escapes are the same JSON", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"<issuer>","\u0061ud":"api\u002dgateway","azp":"jobs-admin","typ":"Bearer","scope":"jobs:read jobs:write","department":"trabalho","sub":"service-account-jobs-admin","exp":{{now+300}},"iat":{{now}},"jti":"x"}`), true},
		{"control: header JSON with extra whitespace", f.signRaw("{ \"alg\" : \"RS256\" ,\n \"typ\" : \"JWT\" , \"kid\" : \"<kid>\" }", string(mustJSON(t, f.claims(nil)))), true},
		{"control: a valid token of the read-only reader client", c(map[string]any{"azp": "reader", "scope": "search:services:read search:migrations:read search:read jobs:read", "department": "planejamento", "sub": "service-account-reader"}), true},

		{"alg none with an empty signature", devidptest.Unsigned(t, f.claims(nil), f.header(map[string]any{"alg": "none"})), false},
		{"alg None (case variant)", devidptest.Unsigned(t, f.claims(nil), f.header(map[string]any{"alg": "None"})), false},
		{"alg nOnE", devidptest.Unsigned(t, f.claims(nil), f.header(map[string]any{"alg": "nOnE"})), false},
		{"alg none with a real RS256 signature attached", h(map[string]any{"alg": "none"}), false},
		{"HS256 keyed with the realm public key as PEM", devidptest.SignHS256(t, f.claims(nil), f.header(map[string]any{"alg": "HS256"}), idp.PublicKeyPEM(t)), false},
		{"HS256 keyed with the realm public key as DER", devidptest.SignHS256(t, f.claims(nil), f.header(map[string]any{"alg": "HS256"}), []byte("der")), false},
		{"HS512 confusion", devidptest.SignHS256(t, f.claims(nil), f.header(map[string]any{"alg": "HS512"}), idp.PublicKeyPEM(t)), false},
		{"RS512 signed with the real key", h(map[string]any{"alg": "RS512"}), false},
		{"PS256 signed with the real key", h(map[string]any{"alg": "PS256"}), false},
		{"ES256 in the header over an RSA signature", h(map[string]any{"alg": "ES256"}), false},
		{"alg rs256 in lower case", h(map[string]any{"alg": "rs256"}), false},
		{"alg RS256 with a trailing space", h(map[string]any{"alg": "RS256 "}), false},
		{"alg missing from the header", h(map[string]any{"alg": nil}), false},
		{"alg as an array", h(map[string]any{"alg": []string{"RS256"}}), false},
		{"duplicate alg in the raw header", withSignature(f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>","alg":"none"}`, string(mustJSON(t, f.claims(nil)))), ""), false},
		{"duplicate alg in the raw header, real signature kept", f.signRaw(`{"alg":"none","typ":"JWT","kid":"<kid>","alg":"RS256"}`, string(mustJSON(t, f.claims(nil)))), false},
		{"an attacker key embedded as jwk", attacker(map[string]any{"jwk": map[string]any{"kty": "RSA", "e": "AQAB", "n": randomB64(t, 256), "kid": idp.KeyID()}}), false},
		{"jku pointing to an attacker JWKS", attacker(map[string]any{"jku": "https://evil.example/jwks.json"}), false},
		{"x5u pointing to an attacker certificate", attacker(map[string]any{"x5u": "https://evil.example/cert.pem"}), false},
		{"x5c with a self-signed attacker chain", attacker(map[string]any{"x5c": []string{randomB64(t, 300)}}), false},
		{"the real kid over another RSA key's signature", attacker(nil), false},
		{"kid missing", h(map[string]any{"kid": nil}), false},
		{"an unknown kid", h(map[string]any{"kid": "unknown-kid-00000000"}), false},
		{"kid path traversal with HS256", devidptest.SignHS256(t, f.claims(nil), f.header(map[string]any{"alg": "HS256", "kid": "../../../../../../dev/null"}), nil), false},
		{"kid SQL injection with HS256", devidptest.SignHS256(t, f.claims(nil), f.header(map[string]any{"alg": "HS256", "kid": "x' UNION SELECT 'secret' -- "}), []byte("secret")), false},
		{"kid as a number", h(map[string]any{"kid": 1}), false},
		{"kid as an object", h(map[string]any{"kid": map[string]any{"$ne": ""}}), false},
		{"kid of 100,000 characters", h(map[string]any{"kid": strings.Repeat("A", 100_000)}), false},
		{"kid with a NUL and CRLF", h(map[string]any{"kid": idp.KeyID() + "\x00\r\nX: y"}), false},

		{"exp as a string", c(map[string]any{"exp": strconv.FormatInt(f.at(time.Hour), 10)}), false},
		{"exp as a boolean", c(map[string]any{"exp": true}), false},
		{"exp missing", c(map[string]any{"exp": nil}), false},
		{"exp an hour ago", c(map[string]any{"exp": f.at(-time.Hour), "iat": f.at(-65 * minute)}), false},
		{"exp two minutes ago, beyond the clock skew", c(map[string]any{"exp": f.at(-2 * minute), "iat": f.at(-7 * minute)}), false},
		{"exp ten years ahead", c(map[string]any{"exp": f.at(10 * 365 * 24 * time.Hour)}), false},
		{"exp overflowing float64", c(map[string]any{"exp": json.RawMessage("1e309")}), false},
		{"exp beyond int64", c(map[string]any{"exp": json.RawMessage("18446744073709551617")}), false},
		{"exp negative", c(map[string]any{"exp": -1}), false},
		{"nbf an hour ahead", c(map[string]any{"nbf": f.at(time.Hour)}), false},
		{"iat an hour ahead", c(map[string]any{"iat": f.at(time.Hour), "exp": f.at(65 * minute)}), false},
		{"a lifetime longer than a day", c(map[string]any{"exp": f.at(24*time.Hour + time.Second)}), false},
		{"issued more than a day ago and still unexpired", c(map[string]any{"iat": f.at(-25 * time.Hour)}), false},
		{"iat missing", c(map[string]any{"iat": nil}), false},
		{"iat as a string", c(map[string]any{"iat": strconv.FormatInt(f.now, 10)}), false},

		{"aud account", c(map[string]any{"aud": "account"}), false},
		{"aud array without api-gateway", c(map[string]any{"aud": []string{"account", "other-api"}}), false},
		{"aud an empty array", c(map[string]any{"aud": []string{}}), false},
		{"aud missing", c(map[string]any{"aud": nil}), false},
		{"aud null", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`, `{"iss":"<issuer>","aud":null,"azp":"jobs-admin","typ":"Bearer","scope":"jobs:read","exp":{{now+300}},"iat":{{now}}}`), false},
		{"aud with a trailing space", c(map[string]any{"aud": "api-gateway "}), false},
		{"aud in upper case", c(map[string]any{"aud": "API-GATEWAY"}), false},
		{"aud with api-gateway as a prefix", c(map[string]any{"aud": "api-gateway-evil"}), false},
		{"aud as an object", c(map[string]any{"aud": map[string]any{"0": "api-gateway"}}), false},
		{"aud nested one level deeper", c(map[string]any{"aud": [][]string{{"api-gateway"}}}), false},
		{"iss of another realm", c(map[string]any{"iss": strings.Replace(idp.Issuer(), "/municipal", "/master", 1)}), false},
		{"iss with a trailing slash", c(map[string]any{"iss": idp.Issuer() + "/"}), false},
		{"iss on a look-alike host", c(map[string]any{"iss": "http://localhost.evil.example/auth/realms/municipal"}), false},
		{"iss with a NUL after the real value", c(map[string]any{"iss": idp.Issuer() + "\x00.evil"}), false},
		{"iss missing", c(map[string]any{"iss": nil}), false},
		{"azp missing", c(map[string]any{"azp": nil}), false},
		{"azp empty", c(map[string]any{"azp": ""}), false},
		{"azp as an array", c(map[string]any{"azp": []string{"jobs-admin", "catalog-admin"}}), false},
		{"typ ID", c(map[string]any{"typ": "ID"}), false},
		{"typ Refresh", c(map[string]any{"typ": "Refresh"}), false},
		{"a duplicate aud member", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"<issuer>","aud":"account","azp":"jobs-admin","typ":"Bearer","scope":"jobs:read jobs:write","department":"trabalho","sub":"s","exp":{{now+300}},"iat":{{now}},"jti":"x","aud":"api-gateway"}`), false},
		{"a duplicate scope member", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"<issuer>","aud":"api-gateway","azp":"reader","typ":"Bearer","scope":"jobs:read","department":"planejamento","sub":"s","exp":{{now+300}},"iat":{{now}},"jti":"x","scope":"jobs:write search:services:write"}`), false},
		{"scope as an array", c(map[string]any{"scope": []string{"jobs:read", "jobs:write"}}), false},
		{"scope as an object", c(map[string]any{"scope": map[string]any{"jobs:write": true}}), false},
		{"scope with tab and newline separators", c(map[string]any{"scope": "jobs:read\tjobs:write-all\njobs"}), false},
		{"department as an object", c(map[string]any{"department": map[string]any{"name": "trabalho", "override": "planejamento"}}), false},
		{"department as an array", c(map[string]any{"department": []string{"trabalho", "planejamento"}}), false},
		// The gateway sends azp and department upstream as header values,
		// where a control character has no place (a NUL is a 400 from a
		// client), and uses them as rate-limit keys and metric labels.
		{"department holding a NUL", c(map[string]any{"department": "a\u0000b"}), false},
		{"department holding CR LF", c(map[string]any{"department": "trabalho\r\nX-Injected: 1"}), false},
		{"department holding DEL", c(map[string]any{"department": "traba\u007flho"}), false},
		{"azp holding a NUL", c(map[string]any{"azp": "jobs-admin\u0000"}), false},
		{"azp holding a tab", c(map[string]any{"azp": "jobs\tadmin"}), false},
		{"azp holding a C1 control", c(map[string]any{"azp": "jobs\u0085admin"}), false},
		{"control: a department with accents and spaces", c(map[string]any{"department": "educação e cultura"}), true},
		{"a claim nested 5,000 levels deep", c(map[string]any{"ext": nested(5000, `{"a":`, "1", "}")}), false},
		// A reviewer's cases: JWT member names are case-sensitive (RFC 7519
		// 10.1), where encoding/json matches a struct field in any case.
		// (Written raw: the later member is the one encoding/json kept.)
		{"AUD naming the audience after an aud that does not", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"<issuer>","aud":"account","azp":"jobs-admin","typ":"Bearer","scope":"jobs:read","department":"trabalho","sub":"s","exp":{{now+300}},"iat":{{now}},"jti":"x","AUD":"api-gateway"}`), false},
		{"Aud instead of aud", c(map[string]any{"aud": nil, "Aud": "api-gateway"}), false},
		{"EXP ahead after an exp long past", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"<issuer>","aud":"api-gateway","azp":"jobs-admin","typ":"Bearer","scope":"jobs:read","department":"trabalho","sub":"s","exp":1000,"iat":{{now}},"jti":"x","EXP":{{now+300}}}`), false},
		{"Exp instead of exp", c(map[string]any{"exp": nil, "Exp": f.at(5 * minute)}), false},
		{"ISS naming the issuer after an iss that does not", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`,
			`{"iss":"http://evil.example","aud":"api-gateway","azp":"jobs-admin","typ":"Bearer","scope":"jobs:read","department":"trabalho","sub":"s","exp":{{now+300}},"iat":{{now}},"jti":"x","ISS":"<issuer>"}`), false},
		{"Iss instead of iss", c(map[string]any{"iss": nil, "Iss": idp.Issuer()}), false},
		{"Typ instead of typ", c(map[string]any{"typ": nil, "Typ": "Bearer"}), false},
		{"AZP instead of azp", c(map[string]any{"azp": nil, "AZP": "jobs-admin"}), false},
		{"scope with two spaces between scopes", c(map[string]any{"scope": "jobs:read  jobs:write"}), false},
		{"scope with a leading space", c(map[string]any{"scope": " jobs:read jobs:write"}), false},
		{"scope with a trailing space", c(map[string]any{"scope": "jobs:read jobs:write "}), false},
		{"nbf null", c(map[string]any{"nbf": json.RawMessage("null")}), false},
		{"iat null", c(map[string]any{"iat": json.RawMessage("null")}), false},
		{"a payload that is a JSON array", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`, `[{"iss":"<issuer>","aud":"api-gateway"}]`), false},
		{"a payload that is not JSON", f.signRaw(`{"alg":"RS256","typ":"JWT","kid":"<kid>"}`, "not json at all"), false},
		{"crit naming an unknown extension", h(map[string]any{"crit": []string{"urn:example:unknown"}, "urn:example:unknown": true}), false},
		{"b64 false listed in crit", h(map[string]any{"b64": false, "crit": []string{"b64"}}), false},
		{"a signature cut by 10 characters", withSignature(control, sig[:len(sig)-10]), false},
		{"an empty signature segment", withSignature(control, ""), false},
		{"a random signature of the right length", withSignature(control, randomB64(t, 256)), false},
		{"a fourth segment after a valid token", control + ".AAAA", false},
		{"five segments shaped like a JWE", base64.RawURLEncoding.EncodeToString(mustJSON(t, f.header(map[string]any{"alg": "RSA-OAEP", "enc": "A256GCM"}))) +
			"." + randomB64(t, 256) + "." + randomB64(t, 12) + "." + randomB64(t, 64) + "." + randomB64(t, 16), false},
		{"only two segments", control[:strings.LastIndex(control, ".")], false},
		{"= padding on every segment", segments(control, func(s string) string { return s + strings.Repeat("=", (4-len(s)%4)%4) + "=" }), false},
		{"the standard base64 alphabet", segments(control, func(s string) string { return strings.NewReplacer("-", "+", "_", "/").Replace(s) + "+/" }), false},
		{"a newline every 64 characters", func() string {
			var b strings.Builder
			for i := 0; i < len(control); i += 64 {
				b.WriteString(control[i:min(i+64, len(control))])
				b.WriteString("\n")
			}
			return b.String()
		}(), false},
		{"a payload re-encoded after signing", func() string {
			parts := strings.Split(control, ".")
			var m map[string]any
			raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
			_ = json.Unmarshal(raw, &m)
			parts[1] = base64.RawURLEncoding.EncodeToString(append(mustJSON(t, m), ' '))
			return strings.Join(parts, ".")
		}(), false},
		{"a 100 KB junk header member", h(map[string]any{"junk": strings.Repeat("A", 100_000)}), false},
	}
	for _, tt := range tests {
		verdict := map[bool]string{true: "is accepted: ", false: "is refused: "}[tt.accept]
		t.Run(verdict+tt.why, func(t *testing.T) {
			claims, err := v.Verify(context.Background(), tt.token)
			if tt.accept {
				if err != nil || claims.ClientID == "" {
					t.Fatalf("Verify = %+v, %v; want accepted", claims, err)
				}
				return
			}
			if claims != nil {
				t.Fatalf("Verify accepted it: %+v", claims)
			}
			pe := mustProblem(t, err, problem.EUNAUTHORIZED)
			if ch := pe.Header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="invalid_token"`) {
				t.Errorf("WWW-Authenticate = %q, want an invalid_token challenge", ch)
			}
		})
	}
}

// A claim is read by its exact name: a member whose name differs only in
// case is another claim, which the verifier does not read (a reviewer's
// tokens moved X-Client-Id, X-Department and the scopes with AZP,
// Department and SCOPE members).
func TestClaimsAreReadByTheirExactNames(t *testing.T) {
	idp := devidptest.Start(t)
	f := &forger{t: t, idp: idp, now: time.Now().Unix()}
	v := newVerifier(t, idp, newClock(time.Unix(f.now, 0)))
	tok := f.sign(f.header(nil), f.claims(map[string]any{
		"azp": "jobs-admin", "AZP": "catalog-admin",
		"department": "trabalho", "Department": "educacao", "DEPARTMENT": "saude",
		"scope": "jobs:read", "SCOPE": "jobs:read jobs:write", "Scope": "search:services:write",
	}))
	c, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if c.ClientID != "jobs-admin" || c.Department != "trabalho" || strings.Join(c.Scopes, " ") != "jobs:read" {
		t.Fatalf("claims read as client %q, department %q, scopes %q; want jobs-admin, trabalho, jobs:read", c.ClientID, c.Department, c.Scopes)
	}
	tok = f.sign(f.header(nil), f.claims(map[string]any{"department": nil, "Department": "educacao"}))
	if c, err := v.Verify(context.Background(), tok); err != nil || c.Department != "" {
		t.Fatalf("a token with only a Department member: %+v, %v; want no department", c, err)
	}
	// The header too: KID is not the kid, so this token names a key the
	// verifier does not hold, and verifying it would ask the provider.
	tok = f.sign(f.header(map[string]any{"kid": "unknown-kid-00000000", "KID": idp.KeyID()}), f.claims(nil))
	if v.HoldsKeyForHeader([]string{"Bearer " + tok}) {
		t.Fatal("a token whose kid is unknown counts as one of a key held, through its KID member")
	}
}
