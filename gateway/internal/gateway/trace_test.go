package gateway_test

import (
	"net/http"
	"strings"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
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
