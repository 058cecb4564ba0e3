package loadtest_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/tools/internal/load"
)

// Rate and default length of the load: moderate, for two shared cores.
const (
	loadRate            = 60
	defaultLoadDuration = 60 * time.Second
)

// TestMixedWritesLoseNothing sends mixed writes through the gateway of a
// real stack, then checks that no request failed and that every row the
// client saw created is in its service's database exactly once with the
// name it sent (or the name of one of its updates).
func TestMixedWritesLoseNothing(t *testing.T) {
	s := shared.Get(t)
	rep := runLoad(t, s, load.WritesMix, loadDuration(t))
	logFigures(t, rep)

	t.Run("every request succeeded", func(t *testing.T) {
		for status, n := range rep.Overall.Statuses {
			if status != "200" && status != "201" {
				t.Errorf("%d answers of status %s; errors: %+v", n, status, rep.Errors)
			}
		}
		if rep.Overall.Requests < uint64(loadRate) {
			t.Errorf("only %d requests were sent", rep.Overall.Requests)
		}
	})
	t.Run("every 201 describes a row the client sent", func(t *testing.T) {
		if len(rep.Unmatched) > 0 {
			t.Errorf("%d unmatched 201s, first: %s", len(rep.Unmatched), rep.Unmatched[0])
		}
	})
	t.Run("every created row is stored exactly once with the data sent", func(t *testing.T) {
		checkStored(t, s, rep)
	})
	t.Run("every created servico has one search document in the current version", func(t *testing.T) {
		checkSearchDocuments(t, s, rep)
	})
}

// TestDefaultMixThroughTheGateway sends every operation of the default mix,
// reads included, and checks that each was answered with success.
func TestDefaultMixThroughTheGateway(t *testing.T) {
	rep := runLoad(t, shared.Get(t), load.DefaultMix, 5*time.Second)
	logFigures(t, rep)
	mix := load.MustParseMix(load.DefaultMix)
	if len(rep.Operations) != len(mix) {
		t.Errorf("%d operations measured, want the %d of the mix: %+v", len(rep.Operations), len(mix), rep.Operations)
	}
	for _, op := range rep.Operations {
		t.Run(op.Operation+" succeeded every time", func(t *testing.T) {
			if op.Requests == 0 || op.Success != 1 {
				t.Errorf("%d requests, success %.3f, statuses %v; errors %+v", op.Requests, op.Success, op.Statuses, rep.Errors)
			}
		})
	}
}

// loadDuration is LOADTEST_DURATION, or defaultLoadDuration.
func loadDuration(t *testing.T) time.Duration {
	v := os.Getenv("LOADTEST_DURATION")
	if v == "" {
		return defaultLoadDuration
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("LOADTEST_DURATION=%q is not a positive duration", v)
	}
	return d
}

// runLoad sends mix through the stack's gateway for d.
func runLoad(t *testing.T, s *stack.Stack, mix string, d time.Duration) *load.Report {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d+2*time.Minute)
	defer cancel()
	rep, err := load.Run(ctx, load.Config{
		SearchURL: s.SearchBaseURL(), JobsURL: s.JobsBaseURL(), AuthURL: s.AuthURL,
		SearchClient: credentials(t, stack.CatalogAdmin), JobsClient: credentials(t, stack.JobsAdmin),
		Mix: load.MustParseMix(mix), Rate: loadRate, Duration: d,
	})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	return rep
}

func credentials(t *testing.T, clientID string) load.Credentials {
	t.Helper()
	secret, err := stack.Secret(clientID)
	if err != nil {
		t.Fatal(err)
	}
	return load.Credentials{ID: clientID, Secret: secret}
}

// logFigures reports the run in the test log.
func logFigures(t *testing.T, rep *load.Report) {
	t.Helper()
	var sb strings.Builder
	if err := rep.WriteText(&sb); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d requests at %.1f req/s (asked %d for %gs), %d created by the load (+%d before it), p50 %.2f ms, p99 %.2f ms\n%s",
		rep.Overall.Requests, rep.Overall.Rate, rep.Rate, rep.Duration, rep.Overall.Count(201), rep.Seeded,
		rep.Overall.P50, rep.Overall.P99, sb.String())
}
