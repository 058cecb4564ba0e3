package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
)

// clientTrace is a traceparent a client sent: trace id and parent span id.
const (
	clientTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	clientSpanID  = "00f067aa0ba902b7"
	clientParent  = "00-" + clientTraceID + "-" + clientSpanID + "-01"
)

// tracedHandler is a program's public handler with a span recorder.
func tracedHandler(t *testing.T) (http.Handler, *tracetest.SpanRecorder, *bytes.Buffer) {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(t.Context()) })
	engine := server.NewGin()
	engine.GET("/api/v1/empregos/:id", func(c *gin.Context) {
		if c.Param("id") == "999" {
			problem.Abort(c, errors.New("the database exploded"))
			return
		}
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "no emprego %s", c.Param("id")))
	})
	var logs bytes.Buffer
	h := server.Handler(server.Options{
		Logger:  server.NewLogger(&logs, server.LogConfig{Level: "info", Format: "json"}),
		Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: 64, Tracer: tp,
	})
	return h, rec, &logs
}

func TestServerSpansContinueTheClientsTraceNamedByRouteTemplate(t *testing.T) {
	t.Parallel()
	h, rec, logs := tracedHandler(t)
	w := serve(h, http.MethodGet, "/api/v1/empregos/42?cpf=12345678900&token=secret", "",
		http.Header{"Traceparent": {clientParent}, "Authorization": {"Bearer secret-token"}})
	if w.Code != http.StatusNotFound {
		t.Fatalf("status %d, want 404", w.Code)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended, want 1", len(spans))
	}
	s := spans[0]
	if s.Name() != "GET /api/v1/empregos/:id" {
		t.Errorf("span name %q, want the method and route template", s.Name())
	}
	if s.SpanKind() != trace.SpanKindServer {
		t.Errorf("span kind %v, want server", s.SpanKind())
	}
	if got := s.SpanContext().TraceID().String(); got != clientTraceID {
		t.Errorf("trace id %s, want the client's %s", got, clientTraceID)
	}
	if got := s.Parent().SpanID().String(); got != clientSpanID || !s.Parent().IsRemote() {
		t.Errorf("parent %s (remote %v), want the client's span %s", got, s.Parent().IsRemote(), clientSpanID)
	}
	attrs := map[string]string{}
	for _, kv := range s.Attributes() {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	for k, want := range map[string]string{"http.request.method": "GET", "http.route": "/api/v1/empregos/:id", "http.response.status_code": "404"} {
		if attrs[k] != want {
			t.Errorf("attribute %s = %q, want %q", k, attrs[k], want)
		}
	}
	for k, v := range attrs {
		for _, leak := range []string{"42", "cpf", "12345678900", "secret", "Bearer"} {
			if strings.Contains(v, leak) {
				t.Errorf("attribute %s = %q carries %q from the path, query or headers", k, v, leak)
			}
		}
	}

	var body problem.Body
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.TraceID != clientTraceID || body.RequestID == "" {
		t.Errorf("problem body trace_id %q request_id %q, want the trace %s beside a request id", body.TraceID, body.RequestID, clientTraceID)
	}
	accessLines := 0
	for sc := bufio.NewScanner(logs); sc.Scan(); {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("a log line is not JSON: %s", sc.Text())
		}
		if line["msg"] == "request" {
			accessLines++
			if line["trace_id"] != clientTraceID || line["request_id"] != body.RequestID {
				t.Errorf("access log trace_id %v request_id %v, want %s and %s", line["trace_id"], line["request_id"], clientTraceID, body.RequestID)
			}
		}
	}
	if accessLines != 1 {
		t.Errorf("%d access log lines, want 1", accessLines)
	}
}

func TestServerSpansStartATraceAndMark5xxAsErrors(t *testing.T) {
	t.Parallel()
	h, rec, _ := tracedHandler(t)
	w := serve(h, http.MethodGet, "/api/v1/empregos/999", "", nil)
	if w.Code != http.StatusInternalServerError {
		t.Fatalf("status %d, want 500", w.Code)
	}
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended, want 1", len(spans))
	}
	s := spans[0]
	if s.Parent().IsValid() {
		t.Errorf("a request without traceparent has parent %v, want a new trace", s.Parent())
	}
	if s.Status().Code != codes.Error {
		t.Errorf("span status %v, want error for a 500", s.Status())
	}
	var body problem.Body
	if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if body.TraceID != s.SpanContext().TraceID().String() {
		t.Errorf("problem body trace_id %q, want the span's %s", body.TraceID, s.SpanContext().TraceID())
	}
}

func TestUnmatchedPathsAndProbesKeepRawPathsOutOfSpans(t *testing.T) {
	t.Parallel()
	h, rec, _ := tracedHandler(t)
	serve(h, http.MethodGet, "/livez", "", nil)
	serve(h, "BREW", "/secret/12345678900", "", nil)
	spans := rec.Ended()
	if len(spans) != 1 {
		t.Fatalf("%d spans ended, want 1 (none for /livez)", len(spans))
	}
	if spans[0].Name() != "_OTHER" {
		t.Errorf("span of an unknown method on an unmatched path is %q, want _OTHER", spans[0].Name())
	}
}

func TestUntracedProblemsCarryNoTraceID(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t)
	w := serve(h, http.MethodGet, "/nowhere", "", http.Header{"Traceparent": {clientParent}})
	if strings.Contains(w.Body.String(), "trace_id") {
		t.Errorf("tracing off, the problem body names a trace: %s", w.Body.String())
	}
}
