package auth_test

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/hostiletest"
	"github.com/municipal-apis/platform/pkg/problem"
)

// tokenCase is one case of testdata/hostile/tokens.json, built here as a
// seed of FuzzAuthenticate (TestHostileTokens checks their answers).
type tokenCase struct {
	Header    map[string]any `json:"header"`
	Claims    map[string]any `json:"claims"`
	HeaderRaw string         `json:"header_raw"`
	ClaimsRaw string         `json:"claims_raw"`
	Signing   string         `json:"signing"`
	Mutate    string         `json:"mutate"`
	Expect    string         `json:"expect"`
	Why       string         `json:"why"`
}

// seedForger builds the tokens of the cases with a real identity provider.
type seedForger struct {
	idp *devidptest.IdP
	now time.Time
}

// value resolves the placeholders of a case's JSON value.
func (f seedForger) value(v any) any {
	switch t := v.(type) {
	case string:
		switch {
		case t == "<kid>":
			return f.idp.KeyID()
		case t == "<issuer>":
			return f.idp.Issuer()
		case t == "<uuid>":
			return fmt.Sprintf("%x", f.now.UnixNano())
		case t == "now" || strings.HasPrefix(t, "now+") || strings.HasPrefix(t, "now-"):
			return json.RawMessage(strconv.FormatInt(f.time(t), 10))
		}
		return t
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = f.value(x)
		}
		return out
	case map[string]any:
		switch {
		case t["$string"] != nil:
			return strconv.FormatInt(f.time(t["$string"].(string)), 10)
		case t["$raw"] != nil:
			return json.RawMessage(t["$raw"].(string))
		case t["$repeat"] != nil:
			return strings.Repeat(t["$repeat"].(string), int(t["count"].(float64)))
		case t["$nest"] != nil:
			return json.RawMessage(hostiletest.Nest(int(t["$nest"].(float64)), t["open"].(string), t["close"].(string), t["leaf"].(string)))
		}
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[k] = f.value(x)
		}
		return out
	}
	return v
}

// time reads "now", "now+N" or "now-N" as Unix seconds.
func (f seedForger) time(s string) int64 {
	n, _ := strconv.ParseInt(strings.TrimPrefix(strings.TrimPrefix(s, "now"), "+"), 10, 64)
	return f.now.Unix() + n
}

// raw replaces the placeholders of a raw header or payload.
func (f seedForger) raw(s string) []byte {
	s = strings.NewReplacer("<kid>", f.idp.KeyID(), "<issuer>", f.idp.Issuer(), "<uuid>", "raw-uuid").Replace(s)
	for _, tag := range []string{"now+300", "now+3600", "now-60", "now-3600", "now"} {
		s = strings.ReplaceAll(s, "{{"+tag+"}}", strconv.FormatInt(f.time(tag), 10))
	}
	return []byte(s)
}

// build returns the token of c and whether it is built exactly as the case
// describes (some signings and mutations are only approximated: those
// tokens still serve as fuzz seeds).
func (f seedForger) build(tb testing.TB, c tokenCase) (string, bool) {
	tb.Helper()
	header, _ := f.value(c.Header).(map[string]any)
	claims, _ := f.value(c.Claims).(map[string]any)
	headerJSON, payload := seedJSON(tb, header), seedJSON(tb, claims)
	if c.HeaderRaw != "" {
		headerJSON = f.raw(c.HeaderRaw)
	}
	if c.ClaimsRaw != "" {
		payload = f.raw(c.ClaimsRaw)
	}
	enc := base64.RawURLEncoding
	unsigned := enc.EncodeToString(headerJSON) + "." + enc.EncodeToString(payload)
	exact := true
	var tok string
	switch {
	case c.Signing == "valid-key" && header["alg"] == "RS256":
		tok = f.idp.SignJSON(tb, headerJSON, payload)
	case c.Signing == "none":
		tok = unsigned + "."
	case strings.HasPrefix(c.Signing, "hs256-with-public-key (PEM"):
		tok = hmacToken(unsigned, f.idp.PublicKeyPEM(tb))
	case c.Signing == "hs256-with-empty-secret":
		tok = hmacToken(unsigned, nil)
	case c.Signing == "hs256 with secret 'secret'":
		tok = hmacToken(unsigned, []byte("secret"))
	case c.Signing == "attacker-rsa-key" || c.Signing == "garbage":
		sig := make([]byte, 256)
		_, _ = rand.Read(sig)
		tok = unsigned + "." + enc.EncodeToString(sig) // never verifies, as an attacker's key
	default:
		tok, exact = f.idp.SignJSON(tb, headerJSON, payload), false
	}
	return mutate(tok, c.Mutate, &exact), exact
}

// hmacToken signs input with HMAC-SHA256 under secret, whatever alg says.
func hmacToken(input string, secret []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(input))
	return input + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// seedJSON encodes v, whose json.RawMessage values go out as written.
func seedJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	out, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("encode %v: %v", v, err)
	}
	return out
}

// mutate applies the change a case makes to the compact token after signing.
func mutate(tok, how string, exact *bool) string {
	parts := strings.Split(tok, ".")
	switch {
	case how == "":
		return tok
	case strings.HasPrefix(how, "drop the last 10 characters of the signature"):
		return tok[:max(0, len(tok)-10)]
	case strings.HasPrefix(how, "replace the signature segment with ''"):
		return parts[0] + "." + parts[1] + "."
	case strings.HasPrefix(how, "append '.AAAA'"):
		return tok + ".AAAA"
	case strings.HasPrefix(how, "drop the signature segment and its dot"):
		return parts[0] + "." + parts[1]
	case strings.HasPrefix(how, "add '=' padding"):
		for i, p := range parts {
			parts[i] = p + strings.Repeat("=", (4-len(p)%4)%4)
		}
		return strings.Join(parts, ".")
	case strings.HasPrefix(how, "re-encode all segments with the standard alphabet"):
		return strings.NewReplacer("-", "+", "_", "/").Replace(tok)
	case strings.HasPrefix(how, "insert '\\n' every 64"):
		var b strings.Builder
		for i, r := range tok {
			if i > 0 && i%64 == 0 {
				b.WriteByte('\n')
			}
			b.WriteRune(r)
		}
		return b.String()
	}
	*exact = false
	return tok + "~"
}

// hostileTokens builds every case of tokens.json with idp.
func hostileTokens(tb testing.TB, idp *devidptest.IdP, now time.Time) ([]tokenCase, []string, []bool) {
	tb.Helper()
	var cases []tokenCase
	hostiletest.Load(tb, "tokens.json", &cases)
	f := seedForger{idp: idp, now: now}
	toks, exact := make([]string, len(cases)), make([]bool, len(cases))
	for i, c := range cases {
		toks[i], exact[i] = f.build(tb, c)
	}
	return cases, toks, exact
}

// FuzzAuthenticate authenticates arbitrary Authorization headers, seeded
// with the hostile tokens and real ones: never a panic, every refusal a
// 401 problem, and whatever it accepts carries the claims of a token signed
// with the identity provider's key (a seed the verifier accepts as sent).
func FuzzAuthenticate(f *testing.F) {
	idp := devidptest.Start(f)
	now := time.Now()
	cfg := idp.VerifierConfig()
	cfg.Now = func() time.Time { return now }
	v, err := auth.NewVerifier(cfg)
	if err != nil {
		f.Fatal(err)
	}
	_, toks, _ := hostileTokens(f, idp, now)
	for _, client := range []string{"jobs-admin", "reader"} {
		toks = append(toks, idp.Token(f, client))
	}
	signed := map[string]bool{} // the claims of every seed that verifies
	for _, tok := range toks {
		if len(tok) > hostiletest.MaxSeedBytes {
			continue
		}
		f.Add("Bearer " + tok)
		if claims, err := v.Authenticate(request("Bearer " + tok)); err == nil {
			signed[claimsKey(claims)] = true
		}
	}
	f.Add("bearer  " + toks[len(toks)-1])
	f.Fuzz(func(t *testing.T, authorization string) {
		claims, err := v.Authenticate(request(authorization))
		if err != nil {
			if !problem.Is(err, problem.EUNAUTHORIZED) {
				t.Fatalf("Authenticate(%q): %v is not a 401", authorization, err)
			}
			return
		}
		if !signed[claimsKey(claims)] {
			t.Fatalf("Authenticate(%q) accepted claims %+v that no signed token carries", authorization, claims)
		}
	})
}

// claimsKey identifies the claims of one token.
func claimsKey(c *auth.Claims) string {
	return fmt.Sprint(c.ClientID, "|", c.Subject, "|", c.TokenID, "|", c.Expiry.Unix(), "|", c.Scopes, "|", c.Department)
}
