package devidptest_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func header(t *testing.T, token string) map[string]any {
	t.Helper()
	seg, _, _ := strings.Cut(token, ".")
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		t.Fatal(err)
	}
	var h map[string]any
	if err := json.Unmarshal(raw, &h); err != nil {
		t.Fatal(err)
	}
	return h
}

func TestSignRawHeaders(t *testing.T) {
	idp := devidptest.Start(t)
	claims := idp.Claims(t, devidptest.Reader)
	tests := []struct {
		name      string
		overrides map[string]any
		want      map[string]any
	}{
		{"defaults to the real alg, kid and typ", nil, map[string]any{"alg": "RS256", "kid": idp.KeyID(), "typ": "JWT"}},
		{"removes a member set to nil", map[string]any{"kid": nil}, map[string]any{"alg": "RS256", "typ": "JWT"}},
		{"replaces and adds members", map[string]any{"typ": "at+jwt", "jku": "http://evil"}, map[string]any{"alg": "RS256", "kid": idp.KeyID(), "typ": "at+jwt", "jku": "http://evil"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := header(t, idp.SignRaw(t, claims, tt.overrides))
			if len(got) != len(tt.want) {
				t.Errorf("header = %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("header[%s] = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestTokensFromTheHelperVerify(t *testing.T) {
	idp := devidptest.Start(t)
	v := idp.Verifier(t)
	for _, client := range []string{devidptest.CatalogAdmin, devidptest.JobsAdmin, devidptest.Reader, devidptest.OtherDept} {
		c, err := v.Verify(context.Background(), idp.Token(t, client))
		if err != nil || c.ClientID != client {
			t.Errorf("%s: Verify() = %+v, %v", client, c, err)
		}
	}
	c, err := v.Verify(context.Background(), idp.SignRaw(t, idp.Claims(t, devidptest.Reader, "jobs:read"), nil))
	if err != nil || strings.Join(c.Scopes, " ") != "jobs:read" {
		t.Errorf("a re-signed narrowed token: %+v, %v", c, err)
	}
}

func TestForgedTokensHaveTheirAlgorithm(t *testing.T) {
	claims := map[string]any{"sub": "x"}
	if h := header(t, devidptest.Unsigned(t, claims, nil)); h["alg"] != "none" {
		t.Errorf("Unsigned header = %v", h)
	}
	tok := devidptest.SignHS256(t, claims, map[string]any{"kid": "k"}, []byte("secret"))
	if h := header(t, tok); h["alg"] != "HS256" || h["kid"] != "k" {
		t.Errorf("SignHS256 header = %v", h)
	}
	if strings.HasSuffix(tok, ".") {
		t.Error("SignHS256 produced an empty signature")
	}
}
