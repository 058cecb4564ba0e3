package load

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// Defaults and bounds of Config.
const (
	DefaultRate       = 50
	DefaultDuration   = 30 * time.Second
	DefaultMaxWorkers = 64
	DefaultTimeout    = 30 * time.Second
	maxRate           = 10000
	maxDuration       = 24 * time.Hour
	maxBody           = 1 << 20
)

// Credentials are one client's client-credentials pair.
type Credentials struct {
	ID, Secret string
}

// Config describes one run.
type Config struct {
	// Env names the deployment (environment.Local or Staging; Production
	// is refused).
	Env string
	// SearchURL is {search_base_url}, JobsURL {go_base_url} and AuthURL
	// {auth_url} of the API document; Realm the identity provider realm.
	SearchURL, JobsURL, AuthURL, Realm string
	// AllowRemoteStaging lets a staging run reach the staging hosts.
	AllowRemoteStaging bool
	// SearchClient and JobsClient get the tokens of each area's requests.
	SearchClient, JobsClient Credentials
	// Mix weighs the operations.
	Mix Mix
	// Rate is requests per second, kept for Duration.
	Rate     int
	Duration time.Duration
	// MaxWorkers bounds the requests in flight; Timeout each request.
	MaxWorkers int
	Timeout    time.Duration
	// Marker is in the name of every row the run writes; default a random
	// "lg-" followed by 12 hex digits.
	Marker string
}

// withDefaults fills the unset fields of c and checks it.
func (c Config) withDefaults() (Config, error) {
	if c.Realm == "" {
		c.Realm = "municipal"
	}
	if c.MaxWorkers <= 0 {
		c.MaxWorkers = DefaultMaxWorkers
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.Marker == "" {
		c.Marker = newMarker()
	}
	switch {
	case len(c.Mix) == 0:
		return c, errors.New("the mix is empty")
	case c.Rate < 1 || c.Rate > maxRate:
		return c, fmt.Errorf("rate %d is outside 1..%d requests per second", c.Rate, maxRate)
	case c.Duration <= 0 || c.Duration > maxDuration:
		return c, fmt.Errorf("duration %v is outside (0, %v]", c.Duration, maxDuration)
	case c.AuthURL == "":
		return c, errors.New("the identity provider URL is required")
	}
	for area := range c.areas() {
		if c.base(area) == "" {
			return c, fmt.Errorf("the mix uses the %s area, whose base URL is not set", area)
		}
		if cred := c.credentials(area); cred.ID == "" || cred.Secret == "" {
			return c, fmt.Errorf("the mix uses the %s area, whose client id and secret are not set", area)
		}
	}
	return c, nil
}

// areas returns the areas the mix sends requests to.
func (c Config) areas() map[Area]bool {
	areas := map[Area]bool{}
	for _, w := range c.Mix {
		areas[w.Op.area()] = true
	}
	return areas
}

func (c Config) base(a Area) string {
	if a == SearchArea {
		return c.SearchURL
	}
	return c.JobsURL
}

func (c Config) credentials(a Area) Credentials {
	if a == SearchArea {
		return c.SearchClient
	}
	return c.JobsClient
}

// target is what CheckTargets must approve: every URL given.
func (c Config) target() Target {
	t := Target{Env: c.Env, AllowRemoteStaging: c.AllowRemoteStaging}
	for _, u := range []string{c.SearchURL, c.JobsURL, c.AuthURL} {
		if u != "" {
			t.URLs = append(t.URLs, u)
		}
	}
	return t
}

// newMarker returns a random run marker.
func newMarker() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return "lg-" + hex.EncodeToString(b)
}
