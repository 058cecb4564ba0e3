package stack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// The programs of a stack, by the names of their binaries; they key
// Options.Env and head their part of Logs.
const (
	IdP         = "devidp"
	SearchAdmin = "search-admin"
	Jobs        = "jobs"
	Gateway     = "gateway"
)

// programs lists the programs in the order they start.
var programs = []string{IdP, SearchAdmin, Jobs, Gateway}

// DefaultRateLimit is the gateway limit of every unset Options.RateLimit*:
// high enough that tests and short loads never reach it.
const DefaultRateLimit = "100000-M"

// readyTimeout bounds the wait for one program's readiness.
const readyTimeout = time.Minute

// Options adjusts a stack; the zero value gives a stack whose gateway limits
// are never reached.
type Options struct {
	// RateLimitPerClient, RateLimitPerDepartment and RateLimitUnauthenticated
	// are the gateway's RATE_LIMIT_* limits, "<n>-S", "-M", "-H" or "-D";
	// empty means DefaultRateLimit.
	RateLimitPerClient       string
	RateLimitPerDepartment   string
	RateLimitUnauthenticated string
	// Env adds variables to one program, keyed by its name (IdP,
	// SearchAdmin, Jobs, Gateway); they win over the stack's own.
	Env map[string][]string
	// LogLevel is every program's LOG_LEVEL; default "info".
	LogLevel string
	// RedisURL is the Redis of the gateway's counters; default
	// $REDISTEST_URL, else redis://127.0.0.1:6379/0.
	RedisURL string

	// Programs starts only these programs, in the stack's order; empty
	// starts all four. A service needs IdP, the gateway needs both services.
	Programs []string
	// Addrs fixes the listen address of a program, by name; default a
	// free loopback port.
	Addrs map[string]string
	// AdminAddrs fixes the admin listen address (ADMIN_ADDR: /readyz,
	// /metrics) of search-admin, jobs or the gateway, by name; default a
	// free loopback port.
	AdminAddrs map[string]string
	// DatabaseURLs fixes the database of a service, by name: it is created
	// when missing, migrated, and kept by Close. Default a fresh database
	// per service, dropped by Close.
	DatabaseURLs map[string]string
	// GatewayLimits leaves the gateway's own RATE_LIMIT_* defaults in place
	// of DefaultRateLimit where the RateLimit fields are empty.
	GatewayLimits bool
	// Binaries is a directory holding the programs built already (make
	// build's bin/); default build them from the working tree.
	Binaries string
	// Output also receives the programs' output as it comes, every line
	// behind its program's name; default none (Logs keeps it either way).
	Output io.Writer
}

// Stack is devidp, search-admin, jobs and the gateway running as separate
// processes on loopback, each service on a database of its own.
type Stack struct {
	// GatewayURL is the gateway's root, e.g. http://127.0.0.1:41234; the
	// API's base URLs are SearchBaseURL and JobsBaseURL.
	GatewayURL string
	// SearchAdminURL and JobsURL reach the services directly, bypassing the gateway.
	SearchAdminURL, JobsURL string
	// AdminURLs are the roots of the admin listeners (/livez, /readyz,
	// /metrics) of search-admin, jobs and the gateway, by name.
	AdminURLs map[string]string
	// AuthURL is devidp's root, the API document's {auth_url}; Issuer is
	// the iss of its tokens.
	AuthURL, Issuer string
	// SearchDatabaseURL and JobsDatabaseURL are the services' databases,
	// created for this stack and dropped by Close.
	SearchDatabaseURL, JobsDatabaseURL string
	// RedisURL and RateLimitKeyPrefix locate the gateway's counters; the
	// prefix is unique to this stack, so stacks never share counters.
	RedisURL, RateLimitKeyPrefix string

	opts      Options
	bin       string
	procs     []*process
	logs      map[string]*logBuffer
	databases []string
	closeOnce sync.Once
	closeErr  error
}

// starts reports whether the stack starts the program name.
func (o Options) starts(name string) bool {
	return len(o.Programs) == 0 || slices.Contains(o.Programs, name)
}

// check refuses a choice of programs that cannot start.
func (o Options) check() error {
	for _, name := range o.Programs {
		if !slices.Contains(programs, name) {
			return fmt.Errorf("no program %q in a stack (want %s)", name, strings.Join(programs, ", "))
		}
	}
	switch {
	case (o.starts(SearchAdmin) || o.starts(Jobs)) && !o.starts(IdP):
		return errors.New("the services need the identity provider: add IdP to Options.Programs")
	case o.starts(Gateway) && !(o.starts(SearchAdmin) && o.starts(Jobs)):
		return errors.New("the gateway routes to both services: add SearchAdmin and Jobs to Options.Programs")
	}
	return nil
}

// Start builds the programs (once per process), creates and migrates a
// fresh database per service, and starts devidp, search-admin, jobs and the
// gateway, returning once each is ready (devidp's /livez, the others'
// /readyz on their admin listeners). It fails when Postgres
// or Redis cannot be reached. Call Close to stop everything.
func Start(ctx context.Context, opts Options) (*Stack, error) {
	s := &Stack{opts: opts, RedisURL: redisURL(opts), RateLimitKeyPrefix: "stack-" + uniqueSuffix(), logs: map[string]*logBuffer{}, AdminURLs: map[string]string{}}
	if s.opts.LogLevel == "" {
		s.opts.LogLevel = "info"
	}
	var out *lockedWriter
	if opts.Output != nil {
		out = &lockedWriter{w: opts.Output}
	}
	for _, p := range programs {
		s.logs[p] = &logBuffer{}
		if out != nil {
			s.logs[p].copyTo = &linePrefixer{w: out, prefix: "[" + p + "] "}
		}
	}
	if err := s.start(ctx); err != nil {
		return nil, errors.Join(fmt.Errorf("start the stack: %w", err), s.Close())
	}
	return s, nil
}

func (s *Stack) start(ctx context.Context) error {
	if err := s.opts.check(); err != nil {
		return err
	}
	if s.opts.starts(Gateway) {
		if err := checkRedis(ctx, s.RedisURL); err != nil {
			return err
		}
	}
	if err := s.checkPostgres(ctx); err != nil {
		return err
	}
	if s.bin = s.opts.Binaries; s.bin == "" {
		var names []string
		for _, p := range programs {
			if s.opts.starts(p) {
				names = append(names, p)
			}
		}
		bin, err := binaries(ctx, names)
		if err != nil {
			return err
		}
		s.bin = bin
	}
	var err error
	if s.opts.starts(IdP) {
		if err := s.startIdP(ctx); err != nil {
			return err
		}
	}
	if s.opts.starts(SearchAdmin) {
		if s.SearchAdminURL, s.SearchDatabaseURL, err = s.startService(ctx, SearchAdmin); err != nil {
			return err
		}
	}
	if s.opts.starts(Jobs) {
		if s.JobsURL, s.JobsDatabaseURL, err = s.startService(ctx, Jobs); err != nil {
			return err
		}
	}
	if s.opts.starts(Gateway) {
		return s.startGateway(ctx)
	}
	return nil
}

// checkPostgres fails with a hint unless the Postgres of every service's
// database answers: the tests' server for a fresh database, the named
// server for one of Options.DatabaseURLs.
func (s *Stack) checkPostgres(ctx context.Context) error {
	for _, svc := range []string{SearchAdmin, Jobs} {
		if !s.opts.starts(svc) {
			continue
		}
		err := adminExec(ctx, "SELECT 1")
		if dsn := s.opts.DatabaseURLs[svc]; dsn != "" {
			err = checkServer(ctx, dsn)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// logEnv is the logging configuration every program gets.
func (s *Stack) logEnv() []string {
	return []string{"LOG_FORMAT=text", "LOG_LEVEL=" + s.opts.LogLevel}
}

// verifierEnv is the environment of a program that verifies tokens.
func (s *Stack) verifierEnv() []string {
	return append(s.logEnv(), "OIDC_ISSUER_URL="+s.Issuer)
}

func (s *Stack) startIdP(ctx context.Context) error {
	url, err := s.startProgram(ctx, IdP, func(addr, _ string) []string {
		return append(s.logEnv(), "DEVIDP_ADDR="+addr, "DEVIDP_ISSUER_BASE=http://"+addr)
	})
	s.AuthURL, s.Issuer = url, url+"/auth/realms/municipal"
	return err
}

// startService migrates the database of service, a new one unless
// Options.DatabaseURLs names one, and serves it.
func (s *Stack) startService(ctx context.Context, service string) (url, dsn string, err error) {
	if dsn = s.opts.DatabaseURLs[service]; dsn == "" {
		db := "stack_" + strings.ReplaceAll(service, "-", "_") + "_" + uniqueSuffix()
		if dsn, err = databaseURL(db); err != nil {
			return "", "", err
		}
		s.databases = append(s.databases, db)
	}
	env := append(s.verifierEnv(), "DATABASE_URL="+dsn)
	migrateEnv := slices.Concat(env, s.opts.Env[service])
	if err := runToEnd(ctx, s.bin, service, migrateEnv, s.logs[service], "migrate", "-create-database"); err != nil {
		return "", "", err
	}
	url, err = s.startProgram(ctx, service, func(addr, admin string) []string {
		return slices.Concat(env, []string{"HTTP_ADDR=" + addr, "ADMIN_ADDR=" + admin})
	}, "serve")
	return url, dsn, err
}

func (s *Stack) startGateway(ctx context.Context) error {
	url, err := s.startProgram(ctx, Gateway, func(addr, admin string) []string {
		return slices.Concat(s.verifierEnv(), []string{"HTTP_ADDR=" + addr, "ADMIN_ADDR=" + admin,
			"ROUTES=/search=" + s.SearchAdminURL + ",/go/v1=" + s.JobsURL,
			"REDIS_URL=" + s.RedisURL, "RATE_LIMIT_KEY_PREFIX=" + s.RateLimitKeyPrefix},
			s.rateLimitEnv())
	})
	s.GatewayURL = url
	return err
}

// rateLimitEnv sets the gateway's limits of Options: DefaultRateLimit for
// an empty one, or nothing under GatewayLimits.
func (s *Stack) rateLimitEnv() []string {
	var env []string
	for _, l := range []struct{ name, rate string }{
		{"RATE_LIMIT_PER_CLIENT", s.opts.RateLimitPerClient},
		{"RATE_LIMIT_PER_DEPARTMENT", s.opts.RateLimitPerDepartment},
		{"RATE_LIMIT_UNAUTHENTICATED", s.opts.RateLimitUnauthenticated},
	} {
		switch {
		case l.rate != "":
			env = append(env, l.name+"="+l.rate)
		case !s.opts.GatewayLimits:
			env = append(env, l.name+"="+DefaultRateLimit)
		}
	}
	return env
}

// startProgram starts name on a free loopback address (and, but for
// devidp, an admin address) with the environment env builds for them (plus
// Options.Env), and waits until it is ready: devidp's /livez, the others'
// /readyz on the admin listener. A free port can be taken by another
// program between its choice and the bind: a program that exits for that
// is started again on other free ports.
func (s *Stack) startProgram(ctx context.Context, name string, env func(addr, admin string) []string, args ...string) (string, error) {
	for attempt := 1; ; attempt++ {
		from := s.logs[name].mark()
		url, chosen, err := s.tryProgram(ctx, name, env, args...)
		if err == nil || !chosen || attempt == portAttempts || !strings.Contains(s.logs[name].since(from), "address already in use") {
			return url, err
		}
		s.procs = s.procs[:len(s.procs)-1] // it has exited
	}
}

// portAttempts bounds the starts of a program that lost its free port.
const portAttempts = 3

// tryProgram is one start of startProgram; chosen reports whether a listen
// address was picked here rather than fixed by Options.
func (s *Stack) tryProgram(ctx context.Context, name string, env func(addr, admin string) []string, args ...string) (url string, chosen bool, err error) {
	want := []string{s.opts.Addrs[name]}
	if name != IdP {
		want = append(want, s.opts.AdminAddrs[name])
	}
	addrs, err := pickAddrs(want)
	if err != nil {
		return "", false, err
	}
	chosen = slices.Contains(want, "")
	addr, admin := addrs[0], ""
	url, ready := "http://"+addr, "http://"+addr+"/livez"
	if name != IdP {
		admin = addrs[1]
		s.AdminURLs[name] = "http://" + admin
		ready = s.AdminURLs[name] + "/readyz"
	}
	from := s.logs[name].mark()
	environ := slices.Concat(env(addr, admin), s.opts.Env[name])
	p, err := startProcess(s.bin, name, environ, s.logs[name], args...)
	if err != nil {
		return "", chosen, err
	}
	p.ready, p.logsInfo = ready, logsInfo(environ)
	s.procs = append(s.procs, p)
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if err := waitReady(ctx, p, from); err != nil {
		return "", chosen, fmt.Errorf("%w\n%s", err, s.logs[name].since(0))
	}
	return url, chosen, nil
}

// Wait returns nil when ctx is done, or an error as soon as one of the
// programs exits: a stack run in the foreground waits on it.
func (s *Stack) Wait(ctx context.Context) error {
	exited := make(chan *process, len(s.procs))
	for _, p := range s.procs {
		go func() {
			select {
			case <-p.done:
				exited <- p
			case <-ctx.Done():
			}
		}()
	}
	select {
	case <-ctx.Done():
		return nil
	case p := <-exited:
		return fmt.Errorf("%s exited: %v", p.name, p.err)
	}
}

// SearchBaseURL is the API document's {search_base_url} on this stack:
// the gateway's /search route.
func (s *Stack) SearchBaseURL() string { return s.GatewayURL + "/search" }

// JobsBaseURL is the API document's {go_base_url} on this stack: the
// gateway's /go/v1 route.
func (s *Stack) JobsBaseURL() string { return s.GatewayURL + "/go/v1" }

// Close stops the programs with SIGTERM, the gateway first, and drops the
// databases the stack created. It reports a program that had exited early or did not stop
// cleanly. Calling it again returns the first result.
func (s *Stack) Close() error {
	s.closeOnce.Do(func() {
		var errs []error
		for i := len(s.procs) - 1; i >= 0; i-- {
			errs = append(errs, s.procs[i].stop())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, db := range s.databases {
			errs = append(errs, dropDatabase(ctx, db))
		}
		s.closeErr = errors.Join(errs...)
	})
	return s.closeErr
}

// logsInfo reports whether a program started with environ writes its INFO
// lines, among them the one that says where it listens (waitReady): the
// last LOG_LEVEL of environ is info or debug.
func logsInfo(environ []string) bool {
	level := "info"
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "LOG_LEVEL="); ok {
			level = strings.ToLower(strings.TrimSpace(v))
		}
	}
	return level == "info" || level == "debug"
}
