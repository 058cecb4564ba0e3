package gateway_test

import (
	"context"
	"io"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// BenchmarkGateway measures one GET through the gateway next to the same GET
// sent straight to the upstream, over loopback with keep-alive connections
// and enough concurrent clients to keep both CPUs busy.
func BenchmarkGateway(b *testing.B) {
	limited := start(b, withEnv("RATE_LIMIT_PER_CLIENT", "1000000000-M", "RATE_LIMIT_PER_DEPARTMENT", "1000000000-M"))
	open := start(b, withEnv("RATE_LIMIT_ENABLED", "false"))
	// Spans made, batched and dropped: the cost of tracing in the gateway
	// itself, without an exporter's network.
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	b.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	traced := start(b, withEnv("RATE_LIMIT_ENABLED", "false"), withTracer(tp))
	token := limited.idp.Token(b, "jobs-admin")
	openToken := open.idp.Token(b, "jobs-admin")
	tracedToken := traced.idp.Token(b, "jobs-admin")
	targets := []struct {
		name, url, token string
	}{
		{"direct to the upstream", limited.jobs.srv.URL + "/api/v1/empregos", token},
		{"through the gateway with Redis limits", limited.base + "/go/v1/api/v1/empregos", token},
		{"through the gateway with limits off", open.base + "/go/v1/api/v1/empregos", openToken},
		{"through the gateway with limits off and tracing on", traced.base + "/go/v1/api/v1/empregos", tracedToken},
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	for _, tt := range targets {
		b.Run(tt.name, func(b *testing.B) {
			b.SetParallelism(8)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if err := get(client, tt.url, tt.token); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// get sends one authorized GET and drains the answer.
func get(client *http.Client, url, token string) error {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != http.StatusOK {
		return &statusError{resp.StatusCode}
	}
	return err
}

type statusError struct{ status int }

func (e *statusError) Error() string { return "unexpected status " + http.StatusText(e.status) }
