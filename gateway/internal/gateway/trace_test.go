package gateway_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/pkg/telemetry/telemetrytest"
)

const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	clientParent  = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

func attrsOf(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

func TestTheGatewayContinuesTheClientsTraceAndIsTheParentOfTheUpstreamCall(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	h := start(t, withTracer(tp))
	token := h.idp.Token(t, "jobs-admin")
	resp, _ := h.do(t, http.MethodGet, "/go/v1/api/v1/empregos/42?cpf=12345678900", token, nil,
		"Traceparent", clientParent, "Tracestate", "vendor=abc")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	sent := h.jobs.last(t).Header
	if err := tp.ForceFlush(t.Context()); err != nil {
		t.Fatal(err)
	}
	var server, client sdktrace.ReadOnlySpan
	var redis []sdktrace.ReadOnlySpan
	for _, s := range rec.Ended() {
		switch {
		case s.SpanKind() == trace.SpanKindServer:
			server = s
		case s.SpanKind() == trace.SpanKindClient && (attrsOf(s)["db.system"] == "redis" || attrsOf(s)["db.system.name"] == "redis"):
			redis = append(redis, s)
		case s.SpanKind() == trace.SpanKindClient:
			client = s
		}
	}
	if server == nil || client == nil {
		t.Fatalf("spans %v: want a server span and an upstream client span", rec.Ended())
	}
	if server.Name() != "GET /go/v1" || server.SpanContext().TraceID().String() != clientTraceID || server.Parent().SpanID().String() != clientSpanID {
		t.Errorf("server span %q in trace %s under %s, want GET /go/v1 under the client's span", server.Name(), server.SpanContext().TraceID(), server.Parent().SpanID())
	}
	if client.Parent().SpanID() != server.SpanContext().SpanID() || client.Name() != "GET" {
		t.Errorf("upstream span %q has parent %s, want GET under the server span %s", client.Name(), client.Parent().SpanID(), server.SpanContext().SpanID())
	}
	if got, want := sent.Get("Traceparent"), "00-"+clientTraceID+"-"+client.SpanContext().SpanID().String()+"-01"; got != want {
		t.Errorf("the upstream received traceparent %q, want %q (the upstream call's span)", got, want)
	}
	if got := sent.Get("Tracestate"); got != "vendor=abc" {
		t.Errorf("the upstream received tracestate %q, want the client's", got)
	}
	if a := attrsOf(client); a["http.response.status_code"] != "200" || a["server.address"] != "127.0.0.1" || a["http.route"] != "/go/v1" {
		t.Errorf("upstream span attributes %v", a)
	}
	if len(redis) == 0 {
		t.Error("no span of the rate limits' Redis calls")
	}
	for _, s := range append([]sdktrace.ReadOnlySpan{server, client}, redis...) {
		if s.SpanContext().TraceID().String() != clientTraceID {
			t.Errorf("span %q is in trace %s, want the client's", s.Name(), s.SpanContext().TraceID())
		}
		for k, v := range attrsOf(s) {
			if k == "server.port" {
				continue // the upstream's random port may hold any digits
			}
			for _, leak := range []string{"42", "cpf", "12345678900", token, "jobs-admin", "trabalho"} {
				if strings.Contains(v, leak) {
					t.Errorf("span %q attribute %s = %q carries %q", s.Name(), k, v, leak)
				}
			}
		}
	}
}

func TestWithoutTracingTheClientsTraceparentPassesThroughUntouched(t *testing.T) {
	t.Parallel()
	h := start(t)
	resp, body := h.do(t, http.MethodGet, "/go/v1/api/v1/empregos", h.idp.Token(t, "jobs-admin"), nil, "Traceparent", clientParent)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %s", resp.StatusCode, body)
	}
	if got := h.jobs.last(t).Header.Get("Traceparent"); got != clientParent {
		t.Errorf("the upstream received traceparent %q, want the client's %q", got, clientParent)
	}
}

func TestAProblemOfTheGatewayNamesItsTrace(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	h := start(t, withTracer(tp))
	resp, body := h.do(t, http.MethodGet, "/go/v1/api/v1/empregos", "", nil, "Traceparent", clientParent)
	p := problemBody(t, resp, body, http.StatusUnauthorized)
	if p["trace_id"] != clientTraceID || p["request_id"] == "" {
		t.Errorf("401 body trace_id %v request_id %v, want the client's trace beside the request id", p["trace_id"], p["request_id"])
	}
}

// TestOneTraceFromTheGatewayThroughTheServiceToTheSQL runs the gateway in
// this process with an in-memory span recorder in front of the real jobs
// service and identity provider as processes (pkg/stack) on the real
// Postgres; jobs exports its spans over OTLP/HTTP to a receiver of the test.
// A POST through the gateway is one trace: the gateway's server span, its
// upstream call, the service's server span below that and the SQL below it.
func TestOneTraceFromTheGatewayThroughTheServiceToTheSQL(t *testing.T) {
	t.Parallel()
	rcv := telemetrytest.Start(t)
	s := stack.StartT(t, stack.Options{Programs: []string{stack.IdP, stack.Jobs}, Env: map[string][]string{
		stack.Jobs: {"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint(), "OTEL_BSP_SCHEDULE_DELAY=100"},
	}})
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	h := start(t, withTracer(tp), withEnv("ROUTES", "/go/v1="+s.JobsURL),
		withAuth(func(ac *auth.Config) { ac.IssuerURL, ac.HTTPClient = s.Issuer, nil }))
	token, err := s.Token(t.Context(), "jobs-admin")
	if err != nil {
		t.Fatal(err)
	}
	resp, body := h.do(t, http.MethodPost, "/go/v1/api/v1/empregos", token,
		strings.NewReader(`{"titulo": "Recepcionista `+randomHex(t)+`", "tipo_contratacao": "CLT"}`), "Content-Type", "application/json")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST empregos through the gateway: %d %s", resp.StatusCode, body)
	}

	var server, upstream sdktrace.ReadOnlySpan
	for _, sp := range rec.Ended() {
		switch {
		case sp.Name() == "POST /go/v1" && sp.SpanKind() == trace.SpanKindServer:
			server = sp
		case sp.Name() == "POST" && sp.SpanKind() == trace.SpanKindClient:
			upstream = sp
		}
	}
	if server == nil || upstream == nil {
		t.Fatalf("the gateway recorded %d spans, not its server span and its upstream call", len(rec.Ended()))
	}
	traceID := server.SpanContext().TraceID().String()
	if server.Parent().IsValid() {
		t.Errorf("the gateway continued a trace nobody sent: parent %v", server.Parent())
	}
	if upstream.Parent().SpanID() != server.SpanContext().SpanID() || upstream.SpanContext().TraceID().String() != traceID {
		t.Errorf("the upstream call is not a child of the gateway's server span")
	}
	// The service's server span ends after its SQL, so it may come in a
	// later export batch: wait for both.
	spans := rcv.WaitFor(t, 20*time.Second, "the service's spans of the request", func(all []telemetrytest.Span) bool {
		return slices.ContainsFunc(all, func(sp telemetrytest.Span) bool {
			return sp.TraceID == traceID && sp.Attrs["db.operation.name"] == "INSERT"
		}) && slices.ContainsFunc(all, func(sp telemetrytest.Span) bool {
			return sp.TraceID == traceID && sp.Name == "POST /api/v1/empregos" && sp.Service == "jobs"
		})
	})
	var svc telemetrytest.Span
	parents := map[string]string{}
	for _, sp := range spans {
		if sp.TraceID != traceID {
			continue
		}
		parents[sp.SpanID] = sp.ParentID
		if sp.Name == "POST /api/v1/empregos" && sp.Service == "jobs" {
			svc = sp
		}
	}
	if svc.SpanID == "" {
		t.Fatalf("no server span of jobs in trace %s", traceID)
	}
	if svc.ParentID != upstream.SpanContext().SpanID().String() {
		t.Errorf("the service's span has parent %s, want the gateway's upstream call %s", svc.ParentID, upstream.SpanContext().SpanID())
	}
	inserts := 0
	for _, sp := range spans {
		if sp.TraceID != traceID || sp.Attrs["db.system.name"] != "postgresql" {
			continue
		}
		p := sp.ParentID
		for p != "" && p != svc.SpanID {
			p = parents[p]
		}
		if p != svc.SpanID {
			t.Errorf("SQL span %q is not below the service's server span", sp.Name)
		}
		if sp.Attrs["db.operation.name"] == "INSERT" {
			inserts++
		}
	}
	if inserts == 0 {
		t.Error("no INSERT span in the trace")
	}
}
