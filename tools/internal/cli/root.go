package cli

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/tools/internal/environment"
)

// Variables that configure the command; flags win over them.
const (
	varEnv          = "MUNICIPAL_ENV"
	varSearchURL    = "MUNICIPAL_SEARCH_URL"
	varJobsURL      = "MUNICIPAL_JOBS_URL"
	varAuthURL      = "MUNICIPAL_AUTH_URL"
	varRealm        = "MUNICIPAL_REALM"
	varClientID     = "MUNICIPAL_CLIENT_ID"
	varClientSecret = "MUNICIPAL_CLIENT_SECRET"
)

// settings are the global flags.
type settings struct {
	env, searchURL, jobsURL, authURL, realm string
	clientID, clientSecret                  string
	scopes                                  []string
	json                                    bool
	timeout                                 time.Duration
	maxAttempts                             int
}

// app is one run of the command.
type app struct {
	env  Env
	set  settings
	root *cobra.Command
}

// rootCommand wraps the cobra tree so that Main controls error output.
type rootCommand struct{ *cobra.Command }

// refuseUnknownSubcommands makes c, when it only groups subcommands
// (municipal servicos), a usage error for an argument that names none of
// them: cobra shows such a command's help and exits 0 for any argument.
// Without arguments it still shows its help.
func refuseUnknownSubcommands(c *cobra.Command) {
	if !c.HasSubCommands() || c.Runnable() {
		return
	}
	c.Args = cobra.ArbitraryArgs
	c.SuggestionsMinimumDistance = 2 // cobra's default, which it sets on the root only
	c.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return usagef("%s", msg)
	}
	for _, sub := range c.Commands() {
		refuseUnknownSubcommands(sub)
	}
}

// ExecuteContext runs args under ctx.
func (r rootCommand) ExecuteContext(ctx context.Context, args []string) error {
	// What cobra cannot find a command for (an unknown command) is a usage
	// error: cobra's own error of it would be a failure, exit status 1.
	if _, _, err := r.Find(args); err != nil {
		return usageError{err}
	}
	r.SetArgs(args)
	return r.Command.ExecuteContext(ctx)
}

func newRoot(env Env) rootCommand {
	a := &app{env: env}
	root := &cobra.Command{
		Use:   "municipal",
		Short: "Manage the search catalog and the jobs and courses of the municipal services API",
		Long: "municipal calls the municipal services API with client credentials, retrying rate-limited\n" +
			"requests with backoff. Configure it with flags or with the MUNICIPAL_* variables each flag names.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(env.Stdin)
	root.SetOut(env.Stdout)
	root.SetErr(env.Stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	a.root = root
	a.addGlobalFlags()
	root.AddCommand(a.tokenCommand(), a.schemasCommand(), a.migrationCommand(), a.apiCommand(), a.importCommand())
	for _, r := range resources {
		root.AddCommand(a.resourceCommand(r))
	}
	for _, c := range root.Commands() {
		refuseUnknownSubcommands(c)
	}
	return rootCommand{root}
}

func (a *app) addGlobalFlags() {
	f := a.root.PersistentFlags()
	f.StringVar(&a.set.env, "env", "", "environment: "+strings.Join(environment.Names(), ", ")+" ($"+varEnv+", default local)")
	f.StringVar(&a.set.searchURL, "search-url", "", "search administration base URL ($"+varSearchURL+")")
	f.StringVar(&a.set.jobsURL, "jobs-url", "", "jobs and courses base URL ($"+varJobsURL+")")
	f.StringVar(&a.set.authURL, "auth-url", "", "identity provider base URL ($"+varAuthURL+")")
	f.StringVar(&a.set.realm, "realm", "", "identity provider realm ($"+varRealm+", default "+environment.Realm+")")
	f.StringVar(&a.set.clientID, "client-id", "", "OAuth client id ($"+varClientID+")")
	f.StringVar(&a.set.clientSecret, "client-secret", "", "OAuth client secret; prefer $"+varClientSecret+", flags show in process lists")
	f.StringSliceVar(&a.set.scopes, "scope", nil, "request only these scopes (repeatable)")
	f.BoolVar(&a.set.json, "json", false, "print the API's JSON instead of tables")
	f.DurationVar(&a.set.timeout, "timeout", 30*time.Second, "timeout of each HTTP request")
	f.IntVar(&a.set.maxAttempts, "max-attempts", client.DefaultMaxAttempts, "attempts per request, retries of 429 and 503 included")
}

// pick returns the first non-empty value.
func pick(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}

// config resolves the settings against the environment variables and the
// environment table into a client configuration.
func (a *app) config() (client.Config, error) {
	g := a.env.Getenv
	e, err := environment.Lookup(pick(a.set.env, g(varEnv), environment.Local))
	if err != nil {
		return client.Config{}, usageError{err}
	}
	cfg := client.Config{
		SearchBaseURL: pick(a.set.searchURL, g(varSearchURL), e.SearchURL),
		JobsBaseURL:   pick(a.set.jobsURL, g(varJobsURL), e.JobsURL),
		TokenURL:      client.TokenURL(pick(a.set.authURL, g(varAuthURL), e.AuthURL), pick(a.set.realm, g(varRealm), environment.Realm)),
		ClientID:      pick(a.set.clientID, g(varClientID)),
		ClientSecret:  pick(a.set.clientSecret, g(varClientSecret)),
		Scopes:        a.set.scopes,
		HTTPClient:    &http.Client{Timeout: a.set.timeout},
		Retry:         client.RetryPolicy{MaxAttempts: a.set.maxAttempts},
		UserAgent:     "municipal-cli",
	}
	if cfg.ClientID == "" || cfg.ClientSecret == "" {
		return cfg, usagef("set the client credentials: $%s and $%s, or --client-id and --client-secret", varClientID, varClientSecret)
	}
	if a.set.maxAttempts < 1 || a.set.timeout <= 0 {
		return cfg, usagef("--max-attempts must be at least 1 and --timeout positive")
	}
	return cfg, nil
}

// client builds the API client of this run.
func (a *app) client() (*client.Client, error) {
	cfg, err := a.config()
	if err != nil {
		return nil, err
	}
	c, err := client.New(cfg)
	if err != nil {
		return nil, usageError{fmt.Errorf("configuration: %w", err)}
	}
	return c, nil
}
