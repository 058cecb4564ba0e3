package load

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

// tripwire is a loopback server that counts every request reaching it.
func tripwire(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &hits
}

func TestRunRefusesBeforeSendingAnything(t *testing.T) {
	t.Parallel()
	url, hits := tripwire(t)
	valid := Config{SearchURL: url + "/search", JobsURL: url + "/go/v1", AuthURL: url, Mix: MustParseMix(DefaultMix),
		SearchClient: Credentials{"catalog-admin", "s"}, JobsClient: Credentials{"jobs-admin", "s"}, Rate: 10, Duration: time.Second}
	tests := []struct {
		name   string
		adjust func(*Config)
		err    string
	}{
		{"the production environment", func(c *Config) { c.Env = "production" }, "production"},
		{"a production identity provider", func(c *Config) { c.AuthURL = "https://auth.municipal.example" }, "production host"},
		{"a remote jobs area", func(c *Config) { c.JobsURL = "http://192.0.2.7/go/v1" }, "loopback only"},
		{"a rate of zero", func(c *Config) { c.Rate = 0 }, "rate 0"},
		{"a negative duration", func(c *Config) { c.Duration = -time.Second }, "duration"},
		{"a missing secret", func(c *Config) { c.JobsClient.Secret = "" }, "jobs area"},
		{"a mix using an area without URL", func(c *Config) { c.SearchURL = "" }, "search area"},
		{"an empty mix", func(c *Config) { c.Mix = nil }, "mix is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name+" is refused", func(t *testing.T) {
			t.Parallel()
			cfg := valid
			tt.adjust(&cfg)
			_, err := Run(context.Background(), cfg)
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Fatalf("error %v, want one saying %q", err, tt.err)
			}
		})
	}
	t.Cleanup(func() {
		if n := hits.Load(); n > 0 {
			t.Errorf("%d requests were sent before refusing", n)
		}
	})
}

func TestRunStopsWhenTheIdentityProviderRefusesTheClient(t *testing.T) {
	t.Parallel()
	idp := devidptest.Start(t)
	url, hits := tripwire(t)
	_, err := Run(context.Background(), Config{SearchURL: url + "/search", JobsURL: url + "/go/v1", AuthURL: idp.URL(),
		Mix: MustParseMix("create-categoria=1"), JobsClient: Credentials{"jobs-admin", "wrong-secret"}, Rate: 10, Duration: time.Second})
	if err == nil || !strings.Contains(err.Error(), "get a token for jobs-admin") {
		t.Fatalf("error %v, want a token refusal", err)
	}
	if n := hits.Load(); n > 0 {
		t.Fatalf("%d requests reached the API without a token", n)
	}
}
