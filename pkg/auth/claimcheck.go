package auth

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// payload holds the claims a verified token must carry.
type payload struct {
	Issuer            string
	Audience          json.RawMessage
	Expiry            json.RawMessage
	NotBefore         json.RawMessage
	IssuedAt          json.RawMessage
	Subject           string
	Type              string
	AuthorizedParty   string
	Scope             string
	Department        string
	Name              string
	PreferredUsername string
	TokenID           string
}

// field returns where the claim named name goes, a string or a raw value;
// nil for a claim the verifier does not read. Names are matched exactly
// (RFC 7519 10.1), not in any case as encoding/json matches struct fields:
// "AUD" or "Department" is another claim.
func (p *payload) field(name string) any {
	switch name {
	case "iss":
		return &p.Issuer
	case "aud":
		return &p.Audience
	case "exp":
		return &p.Expiry
	case "nbf":
		return &p.NotBefore
	case "iat":
		return &p.IssuedAt
	case "sub":
		return &p.Subject
	case "typ":
		return &p.Type
	case "azp":
		return &p.AuthorizedParty
	case "scope":
		return &p.Scope
	case "department":
		return &p.Department
	case "name":
		return &p.Name
	case "preferred_username":
		return &p.PreferredUsername
	case "jti":
		return &p.TokenID
	}
	return nil
}

// decodeExact decodes each member of the JSON object data into where field
// says a member of exactly that name goes (members it returns nil for are
// skipped), and reports false for anything but one object, a member named
// twice (after unescaping, which decoders resolve differently: the first or
// the last wins) or a value of the wrong type.
func decodeExact(data []byte, field func(name string) any) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	seen := map[string]struct{}{}
	for dec.More() {
		t, err := dec.Token()
		name, ok := t.(string)
		if err != nil || !ok {
			return false
		}
		if _, dup := seen[name]; dup {
			return false
		}
		seen[name] = struct{}{}
		var raw json.RawMessage
		if dec.Decode(&raw) != nil {
			return false
		}
		if dst := field(name); dst != nil && json.Unmarshal(raw, dst) != nil {
			return false
		}
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return false
	}
	_, err := dec.Token()
	return err == io.EOF
}

// checkClaims checks the claims of a token whose signature verified and
// returns them, or the reason they are unacceptable. Times are checked with
// one tolerance, cfg.ClockSkew: exp must be ahead of now, nbf and iat not
// ahead of it, and exp - iat at most cfg.MaxTokenLifetime. Time claims must
// be JSON numbers (RFC 7519 NumericDate); iat is required so that the
// lifetime can be bounded.
func checkClaims(raw []byte, cfg Config) (*Claims, string) {
	var p payload
	if !decodeExact(raw, p.field) {
		return nil, "the token claims are malformed"
	}
	exp, hasExp, okExp := numericDate(p.Expiry)
	nbf, hasNbf, okNbf := numericDate(p.NotBefore)
	iat, hasIat, okIat := numericDate(p.IssuedAt)
	now := float64(cfg.Now().UnixNano()) / 1e9
	skew := cfg.ClockSkew.Seconds()
	switch {
	case p.Issuer != cfg.IssuerURL:
		return nil, "the token was issued by another issuer"
	case !audienceHas(p.Audience, cfg.Audience):
		return nil, "the token is not meant for this audience"
	case !okExp || !okNbf || !okIat:
		return nil, "the token's time claims must be numbers"
	case !hasExp:
		return nil, "the token has no expiry"
	case !hasIat:
		return nil, "the token has no issue time (iat)"
	case now >= exp+skew:
		return nil, "the token has expired"
	case hasNbf && nbf > now+skew:
		return nil, "the token is not valid yet"
	case iat > now+skew:
		return nil, "the token was issued in the future"
	case exp <= iat:
		return nil, "the token expires before it was issued"
	case exp-iat > cfg.MaxTokenLifetime.Seconds():
		return nil, "the token lives longer than the maximum token lifetime"
	case p.Type != "Bearer":
		return nil, "the token is not an access token"
	case p.AuthorizedParty == "":
		return nil, "the token names no client (azp)"
	case hasControl(p.AuthorizedParty) || hasControl(p.Department):
		// Both travel as header values (X-Client-Id, X-Department), rate-limit
		// keys and log fields, where a NUL or a line break has no place.
		return nil, "the token's client (azp) or department holds a control character"
	case !validScope(p.Scope):
		return nil, "the token's scope is malformed"
	}
	sec, frac := math.Modf(exp)
	return &Claims{
		Subject:           p.Subject,
		ClientID:          p.AuthorizedParty,
		Department:        p.Department,
		Scopes:            strings.Fields(p.Scope),
		Name:              p.Name,
		PreferredUsername: p.PreferredUsername,
		TokenID:           p.TokenID,
		Expiry:            time.Unix(int64(sec), int64(frac*1e9)),
	}, ""
}

// numericDate reads a NumericDate claim in seconds. present is false for an
// absent claim; ok is false for anything but a JSON number (null too).
func numericDate(raw json.RawMessage) (secs float64, present, ok bool) {
	if len(raw) == 0 {
		return 0, false, true
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return 0, true, false
	}
	secs, err := strconv.ParseFloat(string(raw), 64)
	return secs, true, err == nil && !math.IsInf(secs, 0)
}

// audienceHas reports whether the aud claim, a string or an array of
// strings, contains want.
func audienceHas(raw json.RawMessage, want string) bool {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return one == want
	}
	var many []string
	return json.Unmarshal(raw, &many) == nil && slices.Contains(many, want)
}

// validScope reports whether s is a list of RFC 6749 §3.3 scope tokens
// separated by single spaces (possibly empty); a tab or newline is not a
// separator, and neither are two spaces, nor one at either end.
func validScope(s string) bool {
	if s == "" {
		return true
	}
	for tok := range strings.SplitSeq(s, " ") {
		if tok == "" {
			return false
		}
		for i := 0; i < len(tok); i++ {
			if c := tok[i]; c != 0x21 && (c < 0x23 || c > 0x5B) && (c < 0x5D || c > 0x7E) {
				return false
			}
		}
	}
	return true
}

// hasControl reports whether s holds a control character (C0, DEL or C1).
func hasControl(s string) bool { return strings.ContainsFunc(s, unicode.IsControl) }
