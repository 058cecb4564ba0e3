package auth

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// payload holds the claims a verified token must carry.
type payload struct {
	Issuer            string          `json:"iss"`
	Audience          json.RawMessage `json:"aud"`
	Expiry            json.RawMessage `json:"exp"`
	NotBefore         json.RawMessage `json:"nbf"`
	IssuedAt          json.RawMessage `json:"iat"`
	Subject           string          `json:"sub"`
	Type              string          `json:"typ"`
	AuthorizedParty   string          `json:"azp"`
	Scope             string          `json:"scope"`
	Department        string          `json:"department"`
	Name              string          `json:"name"`
	PreferredUsername string          `json:"preferred_username"`
	TokenID           string          `json:"jti"`
}

// checkClaims checks the claims of a token whose signature verified and
// returns them, or the reason they are unacceptable. Times are checked with
// one tolerance, cfg.ClockSkew: exp must be ahead of now, nbf and iat not
// ahead of it, and exp - iat at most cfg.MaxTokenLifetime. Time claims must
// be JSON numbers (RFC 7519 NumericDate); iat is required so that the
// lifetime can be bounded.
func checkClaims(raw []byte, cfg Config) (*Claims, string) {
	var p payload
	if duplicateMember(raw) || json.Unmarshal(raw, &p) != nil {
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
// absent or null claim; ok is false for anything but a JSON number.
func numericDate(raw json.RawMessage) (secs float64, present, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
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

// validScope reports whether s is a space-separated list of RFC 6749 §3.3
// scope tokens (possibly empty); a tab or newline is not a separator.
func validScope(s string) bool {
	for tok := range strings.SplitSeq(s, " ") {
		for i := 0; i < len(tok); i++ {
			if c := tok[i]; c != 0x21 && (c < 0x23 || c > 0x5B) && (c < 0x5D || c > 0x7E) {
				return false
			}
		}
	}
	return true
}

// duplicateMember reports whether the JSON object data names a member twice
// (after unescaping), which decoders resolve differently: the first or the
// last wins. Anything but an object is left to json.Unmarshal to refuse.
func duplicateMember(data []byte) bool {
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
			return true
		}
		seen[name] = struct{}{}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
