// Command stack runs the whole platform in the foreground on the local
// Postgres and Redis, as `make run` does: devidp on :8090, search-admin on
// :8081, jobs on :8082 and the gateway on :8080 (their probes and metrics on
// the admin listeners :9091, :9092 and :9090), each service on its own
// database (search_admin, jobs), created and migrated first. Ctrl-C stops
// everything. It starts the programs with pkg/stack, the one starter of the
// repository, which the end-to-end tests and the benchmarks use too.
//
//	stack [-bin dir]   dir holds the programs built already (make build's bin/);
//	                   without it they are built from the working tree
//
// The programs get this process's environment, so any of their variables
// can be set for a run, e.g. RATE_LIMIT_PER_CLIENT=5-M make run; the
// stack's own variables are listed in tools/README.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/municipal-apis/platform/pkg/program"
	"github.com/municipal-apis/platform/pkg/stack"
)

func main() {
	program.Main("stack", func(ctx context.Context, args []string) error {
		return realMain(ctx, args, os.Environ(), os.Stdout)
	})
}

// realMain starts the stack configured by the flags in args and the
// variables of environ, prints where it listens and waits until ctx is done
// or a program exits.
func realMain(ctx context.Context, args []string, environ []string, stdout io.Writer) (err error) {
	fs := flag.NewFlagSet("stack", flag.ContinueOnError)
	bin := fs.String("bin", "", "directory of the programs built already; default: build them")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := options(environ)
	opts.Binaries, opts.Output = *bin, stdout
	s, err := stack.Start(ctx, opts)
	if err != nil {
		return err
	}
	defer func() { err = closeAll(err, s) }()
	fmt.Fprint(stdout, banner(s))
	return s.Wait(ctx)
}

// closeAll stops the stack and removes what it built, keeping the first error.
func closeAll(err error, s *stack.Stack) error {
	fmt.Fprintln(os.Stderr, "stopping...")
	for _, e := range []error{s.Close(), stack.RemoveBinaries()} {
		if err == nil {
			err = e
		}
	}
	return err
}

// perProgram are the variables the stack sets for each program itself, or
// each program defaults itself; taken from this process's environment, they
// would give every program the same address, database or service name in
// its traces (the other OTEL_* variables reach every program).
var perProgram = []string{"HTTP_ADDR", "ADMIN_ADDR", "DATABASE_URL", "DEVIDP_ADDR", "OTEL_SERVICE_NAME"}

// options are the stack of a local run: fixed addresses and databases
// (each overridable by a variable), the gateway's own rate limits, and this
// process's environment for every program.
func options(environ []string) stack.Options {
	vars := map[string]string{}
	var inherited []string
	for _, kv := range environ {
		name, value, _ := strings.Cut(kv, "=")
		vars[name] = value
		if !slices.Contains(perProgram, name) {
			inherited = append(inherited, kv)
		}
	}
	get := func(name, def string) string {
		if v := vars[name]; v != "" {
			return v
		}
		return def
	}
	pg, redis := get("PGHOST_ADDR", "127.0.0.1:5432"), get("REDIS_ADDR", "127.0.0.1:6379")
	return stack.Options{
		Addrs: map[string]string{
			stack.IdP:         get("DEVIDP_ADDR", "127.0.0.1:8090"),
			stack.SearchAdmin: get("SEARCH_ADMIN_ADDR", "127.0.0.1:8081"),
			stack.Jobs:        get("JOBS_ADDR", "127.0.0.1:8082"),
			stack.Gateway:     get("GATEWAY_ADDR", "127.0.0.1:8080"),
		},
		AdminAddrs: map[string]string{
			stack.SearchAdmin: get("SEARCH_ADMIN_ADMIN_ADDR", "127.0.0.1:9091"),
			stack.Jobs:        get("JOBS_ADMIN_ADDR", "127.0.0.1:9092"),
			stack.Gateway:     get("GATEWAY_ADMIN_ADDR", "127.0.0.1:9090"),
		},
		DatabaseURLs: map[string]string{
			stack.SearchAdmin: get("SEARCH_ADMIN_DATABASE_URL", "postgres://postgres@"+pg+"/search_admin?sslmode=disable"),
			stack.Jobs:        get("JOBS_DATABASE_URL", "postgres://postgres@"+pg+"/jobs?sslmode=disable"),
		},
		RedisURL:      get("REDIS_URL", "redis://"+redis+"/0"),
		LogLevel:      get("LOG_LEVEL", "info"),
		GatewayLimits: true,
		Env: map[string][]string{
			stack.IdP: inherited, stack.SearchAdmin: inherited, stack.Jobs: inherited, stack.Gateway: inherited,
		},
	}
}

// banner says where the stack listens and how to call it.
func banner(s *stack.Stack) string {
	return fmt.Sprintf(`
The stack is up (Ctrl-C stops it):
  gateway       %s   (/search -> search-admin, /go/v1 -> jobs)
  search-admin  %s
  jobs          %s
  devidp        %s   (development identity provider, not for production)
  probes and metrics (/readyz, /metrics): gateway %s, search-admin %s, jobs %s

Get a token and call the API:
  TOKEN=$(curl -s -d grant_type=client_credentials -d client_id=jobs-admin -d client_secret=jobs-admin-secret \
    %s | jq -r .access_token)
  curl -s -H "Authorization: Bearer $TOKEN" %s/api/v1/escolaridades

`, s.GatewayURL, s.SearchAdminURL, s.JobsURL, s.AuthURL,
		s.AdminURLs[stack.Gateway], s.AdminURLs[stack.SearchAdmin], s.AdminURLs[stack.Jobs], s.TokenURL(), s.JobsBaseURL())
}
