package loadtest_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/municipal-apis/platform/pkg/redistest"
	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/tools/internal/load"
)

// faultWorkers is how many requests the suite keeps under way.
const faultWorkers = 4

// faultPhase is one step of the fault suite: a fault injected while the
// mixed load runs, and the statuses an attempt may get meanwhile besides 2xx.
type faultPhase struct {
	name    string
	fault   string // what was done, for the table
	allowed []int
	inject  func(ctx context.Context) (string, error) // returns when the phase ends, with what it did
}

// TestMixedLoadThroughFaultsLosesNothingAcknowledged runs a mixed load
// (creates with Idempotency-Key, updates, lists, search) through the gateway
// of a real stack while it, in turn, kills the gateway's Redis, terminates
// every Postgres session of the stack's databases again and again, SIGKILLs
// and restarts the jobs service, and stops the identity provider. Each
// request is retried, with the same key, while it gets no answer, 502, 503
// or 504. It checks that every attempt got 2xx or the statuses its phase
// allows (none but 2xx while Redis or the identity provider is down; 503
// while sessions are terminated; 502 or 503 while jobs is down), that every
// request was in the end answered, and that every write the client saw
// acknowledged is stored exactly once. The table of the run is in the
// test log (-v).
func TestMixedLoadThroughFaultsLosesNothingAcknowledged(t *testing.T) {
	start := time.Now()
	redis := redistest.Start(t) // the gateway's own Redis, which the suite kills
	s := stack.StartT(t, stack.Options{RedisURL: redis.URL()})
	ctx := context.Background()
	tokens := map[load.Area]string{}
	for area, client := range map[load.Area]string{load.SearchArea: stack.CatalogAdmin, load.JobsArea: stack.JobsAdmin} {
		tok, err := s.Token(ctx, client)
		if err != nil {
			t.Fatal(err)
		}
		tokens[area] = tok
	}
	phases := []faultPhase{
		{name: "baseline", fault: "none", inject: pause(3 * time.Second)},
		{name: "redis", allowed: nil, inject: func(ctx context.Context) (string, error) {
			redis.Stop(t)
			sleep(ctx, 5*time.Second)
			redis.Restart(t)
			sleep(ctx, 2*time.Second)
			return "the gateway's redis-server SIGKILLed, 5 s down, restarted empty", nil
		}},
		{name: "postgres", allowed: []int{http.StatusServiceUnavailable}, inject: func(ctx context.Context) (string, error) {
			n, err := terminateSessions(ctx, s, 6*time.Second, 250*time.Millisecond)
			sleep(ctx, 2*time.Second)
			return fmt.Sprintf("%d sessions of the stack's 2 databases terminated over 6 s", n), err
		}},
		{name: "jobs killed", allowed: []int{http.StatusBadGateway, http.StatusServiceUnavailable}, inject: func(ctx context.Context) (string, error) {
			if err := s.Kill(stack.Jobs); err != nil {
				return "", err
			}
			down := time.Now()
			sleep(ctx, time.Second)
			if err := s.Restart(ctx, stack.Jobs); err != nil {
				return "", err
			}
			gone := time.Since(down)
			sleep(ctx, 3*time.Second)
			return fmt.Sprintf("jobs SIGKILLed, restarted: %.1f s down", gone.Seconds()), nil
		}},
		{name: "idp stopped", allowed: nil, inject: func(ctx context.Context) (string, error) {
			if err := s.Stop(stack.IdP); err != nil {
				return "", err
			}
			sleep(ctx, 6*time.Second)
			return "devidp stopped (SIGTERM) for the rest of the run", nil
		}},
	}

	d := newFaultDriver(map[load.Area]string{load.SearchArea: s.SearchBaseURL(), load.JobsArea: s.JobsBaseURL()}, tokens, len(phases))
	if err := d.seed(); err != nil {
		t.Fatal(err)
	}
	loadCtx, stopLoad := context.WithCancel(ctx)
	loadDone := make(chan struct{})
	go func() { defer close(loadDone); d.run(loadCtx, faultWorkers) }()
	for i := range phases {
		d.enter(i)
		done, err := phases[i].inject(ctx)
		if err != nil {
			stopLoad()
			<-loadDone
			t.Fatalf("phase %s: %v", phases[i].name, err)
		}
		phases[i].fault = orNone(done, phases[i].fault)
	}
	stopLoad()
	<-loadDone

	verified := checkAcknowledged(t, s, d)
	t.Logf("fault suite, %s in all:\n%s", time.Since(start).Round(time.Second), faultTable(d, phases, verified))
	for i, p := range phases {
		t.Run(p.name+": every attempt got 2xx or "+allowedText(p.allowed), func(t *testing.T) {
			for status, n := range d.attempts[i] {
				if (status < 200 || status >= 300) && !slices.Contains(p.allowed, status) {
					t.Errorf("%d attempts answered %d", n, status)
				}
			}
			if d.requests[i] == 0 {
				t.Error("no request was sent in this phase")
			}
		})
	}
	t.Run("every request was answered for good", func(t *testing.T) {
		for _, why := range d.failed {
			t.Error(why)
		}
	})
}

// pause is a phase that injects nothing for d.
func pause(d time.Duration) func(context.Context) (string, error) {
	return func(ctx context.Context) (string, error) { sleep(ctx, d); return "", nil }
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

func orNone(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

// terminateSessions ends, every interval for d, every session of the
// stack's own two databases (never another database of the server), as a
// failover or an administrator would, and returns how many it ended.
func terminateSessions(ctx context.Context, s *stack.Stack, d, interval time.Duration) (int, error) {
	admin, err := pgx.Connect(ctx, s.JobsDatabaseURL)
	if err != nil {
		return 0, err
	}
	defer admin.Close(context.Background())
	names := []string{databaseName(s.JobsDatabaseURL), databaseName(s.SearchDatabaseURL)}
	total := 0
	for end := time.Now().Add(d); time.Now().Before(end); sleep(ctx, interval) {
		var n int
		err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE datname = ANY($1) AND pid <> pg_backend_pid()`, names).Scan(&n)
		if err != nil {
			return total, fmt.Errorf("terminate sessions: %w", err)
		}
		total += n
	}
	return total, nil
}

// databaseName is the database of a Postgres URL.
func databaseName(dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Path, "/")
}

// checkAcknowledged checks in both databases that every create the client
// saw acknowledged is stored exactly once, under the id it was given, with
// the name sent, and that no name of the run is stored twice; it returns
// the line of the table that says so.
func checkAcknowledged(t *testing.T, s *stack.Stack, d *faultDriver) string {
	t.Helper()
	byResource := map[*load.Resource][]acked{}
	for _, a := range d.acked {
		byResource[a.resource] = append(byResource[a.resource], a)
	}
	var parts []string
	verified, extra := 0, 0
	for _, r := range load.Resources {
		rows := storedRows(t, databaseOf(s, r), tables[r], r.NameField, d.marker)
		checkNamesOnce(t, r, rows)
		for _, a := range byResource[r] {
			name, ok := rows[a.id]
			switch {
			case !ok:
				t.Errorf("%s %s (%q) was acknowledged but is not stored", r.Name, a.id, a.name)
			case name != a.name && !(a.id == d.seedID && slices.Contains(d.updates, name)):
				t.Errorf("%s %s is stored as %q, not as acknowledged (%q)", r.Name, a.id, name, a.name)
			default:
				verified++
			}
		}
		extra += len(rows) - len(byResource[r])
		parts = append(parts, fmt.Sprintf("%s %d", r.Name, len(byResource[r])))
	}
	if extra != 0 {
		t.Errorf("%d rows of the run are stored that no acknowledged create describes", extra)
	}
	return fmt.Sprintf("acknowledged writes verified: %d of %d stored exactly once (%s); %d stored without acknowledgement",
		verified, len(d.acked), strings.Join(parts, ", "), extra)
}

// faultTable writes the run: each phase's fault, requests and statuses.
func faultTable(d *faultDriver, phases []faultPhase, verified string) string {
	var sb strings.Builder
	w := tabwriter.NewWriter(&sb, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "phase\tfault injected\trequests\tattempts by status\t")
	total := 0
	for i, p := range phases {
		total += d.requests[i]
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\t\n", p.name, p.fault, d.requests[i], d.statuses(i))
	}
	fmt.Fprintf(w, "all\t\t%d\t\t\n", total)
	_ = w.Flush()
	sb.WriteString(verified + "\n")
	return sb.String()
}

func allowedText(allowed []int) string {
	if len(allowed) == 0 {
		return "nothing else"
	}
	s := make([]string, len(allowed))
	for i, a := range allowed {
		s[i] = fmt.Sprint(a)
	}
	return strings.Join(s, " or ")
}
