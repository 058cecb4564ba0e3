package app

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/program/programtest"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		ok   bool
	}{
		{"defaults to the loopback address", nil, true},
		{"accepts localhost", map[string]string{"DEVIDP_ADDR": "localhost:8090"}, true},
		{"accepts IPv6 loopback", map[string]string{"DEVIDP_ADDR": "[::1]:8090"}, true},
		{"refuses every interface", map[string]string{"DEVIDP_ADDR": ":8090"}, false},
		{"refuses 0.0.0.0", map[string]string{"DEVIDP_ADDR": "0.0.0.0:8090"}, false},
		{"refuses a host name", map[string]string{"DEVIDP_ADDR": "devidp:8090"}, false},
		{"binds every interface when allowed", map[string]string{"DEVIDP_ADDR": "0.0.0.0:8090", "DEVIDP_ALLOW_NON_LOOPBACK": "true"}, true},
		{"refuses an address without port", map[string]string{"DEVIDP_ADDR": "127.0.0.1"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadConfig(context.Background(), envconfig.MapLookuper(tt.env))
			if (err == nil) != tt.ok {
				t.Fatalf("LoadConfig() error = %v, want ok=%v", err, tt.ok)
			}
			if tt.ok && (cfg.HTTP.Addr != cfg.Addr || cfg.HTTP.ReadHeaderTimeout <= 0) {
				t.Errorf("HTTP config = %+v, want the DEVIDP_ADDR and default timeouts", cfg.HTTP)
			}
		})
	}
	cfg, _ := LoadConfig(context.Background(), envconfig.MapLookuper(nil))
	if cfg.Addr != "127.0.0.1:8090" || cfg.IssuerBase != "" || cfg.RealmFile != "" {
		t.Errorf("defaults = %q %q %q", cfg.Addr, cfg.IssuerBase, cfg.RealmFile)
	}
}

func TestIssuerBaseIsTheListenAddressUnlessSet(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want func(addr string) string // the issuer, given the address devidp listens on
	}{
		{"unset: the address devidp listens on", map[string]string{"DEVIDP_ADDR": "127.0.0.1:0"},
			func(addr string) string { return "http://" + addr + "/auth/realms/municipal" }},
		{"unset, every interface: loopback", map[string]string{"DEVIDP_ADDR": "0.0.0.0:0", "DEVIDP_ALLOW_NON_LOOPBACK": "true"},
			func(addr string) string {
				_, port, _ := net.SplitHostPort(addr)
				return "http://127.0.0.1:" + port + "/auth/realms/municipal"
			}},
		{"set: as given, without its trailing slash", map[string]string{"DEVIDP_ADDR": "127.0.0.1:0", "DEVIDP_ISSUER_BASE": "https://idp.example/"},
			func(string) string { return "https://idp.example/auth/realms/municipal" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := LoadConfig(context.Background(), envconfig.MapLookuper(tt.env))
			if err == nil {
				err = cfg.Validate()
			}
			if err != nil {
				t.Fatal(err)
			}
			cfg.Stderr = &logtest.Buffer{}
			a, err := New(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if got, want := a.idp.Issuer(), tt.want(a.Addr()); got != want {
				t.Errorf("issuer = %q, want %q", got, want)
			}
		})
	}
}

func TestValidateNamesTheIssuerBaseVariable(t *testing.T) {
	for _, base := range []string{"notaurl", "ftp://idp.example", "http://idp.example/?realm=x", "http://"} {
		cfg, err := LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{"DEVIDP_ISSUER_BASE": base}))
		if err == nil {
			err = cfg.Validate()
		}
		if err == nil || !strings.Contains(err.Error(), "DEVIDP_ISSUER_BASE \""+base) || strings.Contains(err.Error(), "devidp:") {
			t.Errorf("DEVIDP_ISSUER_BASE=%q: error %v, want one that names the variable and its value", base, err)
		}
	}
}

func TestRunServesTheRealmFileUntilCancelled(t *testing.T) {
	realmFile := filepath.Join(t.TempDir(), "realm.json")
	realm := strings.Replace(string(devidp.DefaultRealmJSON()), `"secret": "reader-secret"`, `"secret": "rotated"`, 1)
	if err := os.WriteFile(realmFile, []byte(realm), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // a free port for DEVIDP_ADDR, which the issuer must name before New listens
	base := "http://" + addr
	cfg, err := LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"DEVIDP_ADDR": addr, "DEVIDP_ISSUER_BASE": base, "DEVIDP_REALM_FILE": realmFile,
	}))
	if err != nil {
		t.Fatal(err)
	}
	var stderr logtest.Buffer
	cfg.Stderr = &stderr
	a, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	stop := programtest.RunInBackground(t, a, 10*time.Second)

	resp, err := http.PostForm(base+"/auth/realms/municipal/protocol/openid-connect/token",
		url.Values{"grant_type": {"client_credentials"}, "client_id": {"reader"}, "client_secret": {"rotated"}})
	if err != nil {
		t.Fatalf("token request: %v", err)
	}
	var body struct {
		AccessToken string `json:"access_token"`
	}
	err = json.NewDecoder(resp.Body).Decode(&body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("token response %d: %v", resp.StatusCode, err)
	}
	v, err := auth.NewVerifier(auth.Config{IssuerURL: base + "/auth/realms/municipal"})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := v.Verify(context.Background(), body.AccessToken); err != nil || c.ClientID != "reader" {
		t.Errorf("Verify() = %v, %v", c, err)
	}
	if r, err := http.Get(base + "/livez"); err != nil || r.StatusCode != http.StatusOK {
		t.Errorf("GET /livez = %v, %v", r, err)
	} else {
		r.Body.Close()
	}

	stop()
	out := stderr.String()
	if !strings.Contains(out, "NOT FOR PRODUCTION") {
		t.Error("the start-up warning is missing")
	}
	if strings.Contains(out, "rotated") || strings.Contains(out, body.AccessToken[:40]) {
		t.Error("the log contains a secret or a token")
	}
}

func TestLoadRealm(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	disabled := filepath.Join(dir, "disabled.json")
	if err := os.WriteFile(bad, []byte(`{"realm": "x", "clients": [{"clientId": "a", "defaultClientScopes": ["nope"]}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	off := strings.Replace(string(devidp.DefaultRealmJSON()), `"enabled": true`, `"enabled": false`, 1)
	if err := os.WriteFile(disabled, []byte(off), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"uses the embedded realm by default", "", true},
		{"fails on a missing file", filepath.Join(dir, "missing.json"), false},
		{"fails on a realm devidp cannot serve", bad, false},
		{"fails on a disabled realm", disabled, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := loadRealm(tt.path); (err == nil) != tt.ok {
				t.Errorf("loadRealm(%q) error = %v, want ok=%v", tt.path, err, tt.ok)
			}
		})
	}
}
