package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/municipal-apis/platform/pkg/devidp"
	"github.com/municipal-apis/platform/tools/internal/environment"
	"github.com/municipal-apis/platform/tools/internal/load"
)

// Variables holding the client secrets, kept out of flags so that they do
// not show in process lists.
const (
	searchSecretVar = "LOADGEN_SEARCH_CLIENT_SECRET"
	jobsSecretVar   = "LOADGEN_JOBS_CLIENT_SECRET"
)

// parseArgs reads the flags into a run configuration and whether to print
// JSON; base URLs default to those of --env.
func parseArgs(args []string, getenv func(string) string, stderr io.Writer) (load.Config, bool, error) {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg load.Config
	fs.StringVar(&cfg.Env, "env", environment.Local, "deployment: local or staging (production is refused)")
	fs.StringVar(&cfg.SearchURL, "search-url", "", "{search_base_url}; default from --env")
	fs.StringVar(&cfg.JobsURL, "jobs-url", "", "{go_base_url}; default from --env")
	fs.StringVar(&cfg.AuthURL, "auth-url", "", "{auth_url} of the identity provider; default from --env")
	fs.StringVar(&cfg.Realm, "realm", environment.Realm, "identity provider realm")
	fs.StringVar(&cfg.SearchClient.ID, "search-client-id", "catalog-admin", "client of the search area ($"+searchSecretVar+" holds its secret)")
	fs.StringVar(&cfg.JobsClient.ID, "jobs-client-id", "jobs-admin", "client of the jobs area ($"+jobsSecretVar+" holds its secret)")
	fs.IntVar(&cfg.Rate, "rate", load.DefaultRate, "requests per second")
	fs.DurationVar(&cfg.Duration, "duration", load.DefaultDuration, "how long to send")
	fs.IntVar(&cfg.MaxWorkers, "max-workers", load.DefaultMaxWorkers, "most requests in flight")
	fs.DurationVar(&cfg.Timeout, "timeout", load.DefaultTimeout, "timeout of each request")
	fs.BoolVar(&cfg.AllowRemoteStaging, "allow-remote-staging", false, "with --env staging, let the load reach the staging hosts")
	mix := fs.String("mix", load.DefaultMix, "operation weights, op=weight,...")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := fs.Parse(args); err != nil {
		return cfg, false, err
	}
	if fs.NArg() > 0 {
		return cfg, false, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	var err error
	if cfg.Mix, err = load.ParseMix(*mix); err != nil {
		return cfg, false, err
	}
	if err := withEnvironment(&cfg); err != nil {
		return cfg, false, err
	}
	cfg.SearchClient.Secret, cfg.JobsClient.Secret = getenv(searchSecretVar), getenv(jobsSecretVar)
	if cfg.Env == environment.Local {
		err = withDevSecrets(&cfg)
	}
	return cfg, *asJSON, err
}

// withEnvironment fills the base URLs left unset from the table of --env.
func withEnvironment(cfg *load.Config) error {
	env, err := environment.Lookup(cfg.Env)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		dst *string
		def string
	}{{&cfg.SearchURL, env.SearchURL}, {&cfg.JobsURL, env.JobsURL}, {&cfg.AuthURL, env.AuthURL}} {
		if *f.dst == "" {
			*f.dst = f.def
		}
	}
	return nil
}

// withDevSecrets fills the secrets left unset from the development realm,
// whose secrets are public on purpose.
func withDevSecrets(cfg *load.Config) error {
	realm, err := devidp.DefaultRealm()
	if err != nil {
		return fmt.Errorf("load the development realm: %w", err)
	}
	for _, cred := range []*load.Credentials{&cfg.SearchClient, &cfg.JobsClient} {
		if c, ok := realm.Client(cred.ID); ok && cred.Secret == "" {
			cred.Secret = c.Secret
		}
	}
	return nil
}
