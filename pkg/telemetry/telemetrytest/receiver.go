// Package telemetrytest is an OTLP trace receiver for tests: a loopback
// server that decodes every ExportTraceServiceRequest the programs send
// (OTLP/HTTP to /v1/traces, application/x-protobuf, gzip or not; or OTLP
// over gRPC) and keeps its spans, so a test can assert the traces real
// programs export.
package telemetrytest

import (
	"compress/gzip"
	"context"
	"encoding/hex"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, flattened.
type Span struct {
	Service  string // service.name of its resource
	Name     string
	Kind     tracepb.Span_SpanKind
	TraceID  string // hex
	SpanID   string // hex
	ParentID string // hex, "" for a root span
	Start    time.Time
	End      time.Time
	Attrs    map[string]string
	Error    bool // status code ERROR
}

// Duration is how long the span lasted.
func (s Span) Duration() time.Duration { return s.End.Sub(s.Start) }

// Receiver collects the spans sent to it.
type Receiver struct {
	srv     *httptest.Server // nil for gRPC
	grpcURL string
	mu      sync.Mutex
	spans   []Span
	bad     []string // what was refused, for the test's failure message
}

// Start runs a receiver until the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	r := &Receiver{}
	r.srv = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.srv.Close)
	return r
}

// StartGRPC runs a receiver of OTLP over gRPC until the test ends.
func StartGRPC(t testing.TB) *Receiver {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &Receiver{grpcURL: "http://" + ln.Addr().String()}
	srv := grpc.NewServer()
	collectortrace.RegisterTraceServiceServer(srv, traceService{r: r})
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	return r
}

// traceService is the gRPC TraceService of a receiver.
type traceService struct {
	collectortrace.UnimplementedTraceServiceServer
	r *Receiver
}

func (s traceService) Export(_ context.Context, req *collectortrace.ExportTraceServiceRequest) (*collectortrace.ExportTraceServiceResponse, error) {
	s.r.record(req)
	return &collectortrace.ExportTraceServiceResponse{}, nil
}

// Endpoint is the base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT.
func (r *Receiver) Endpoint() string {
	if r.srv == nil {
		return r.grpcURL
	}
	return r.srv.URL
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
		r.refuse(w, req.Method+" "+req.URL.Path+" "+req.Header.Get("Content-Type"), http.StatusNotFound)
		return
	}
	body := io.Reader(req.Body)
	if req.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(req.Body)
		if err != nil {
			r.refuse(w, "gzip: "+err.Error(), http.StatusBadRequest)
			return
		}
		body = gz
	}
	data, err := io.ReadAll(body)
	if err != nil {
		r.refuse(w, "read: "+err.Error(), http.StatusBadRequest)
		return
	}
	var msg collectortrace.ExportTraceServiceRequest
	if err := proto.Unmarshal(data, &msg); err != nil {
		r.refuse(w, "decode: "+err.Error(), http.StatusBadRequest)
		return
	}
	r.record(&msg)
	out, _ := proto.Marshal(&collectortrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

// record keeps the spans of msg.
func (r *Receiver) record(msg *collectortrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range msg.GetResourceSpans() {
		service := attrs(rs.GetResource().GetAttributes())["service.name"]
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				r.spans = append(r.spans, Span{
					Service:  service,
					Name:     s.GetName(),
					Kind:     s.GetKind(),
					TraceID:  hex.EncodeToString(s.GetTraceId()),
					SpanID:   hex.EncodeToString(s.GetSpanId()),
					ParentID: hex.EncodeToString(s.GetParentSpanId()),
					Start:    time.Unix(0, int64(s.GetStartTimeUnixNano())),
					End:      time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Attrs:    attrs(s.GetAttributes()),
					Error:    s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
				})
			}
		}
	}
}

func (r *Receiver) refuse(w http.ResponseWriter, what string, status int) {
	r.mu.Lock()
	r.bad = append(r.bad, what)
	r.mu.Unlock()
	http.Error(w, what, status)
}

// attrs flattens OTLP attributes to strings.
func attrs(kvs []*commonpb.KeyValue) map[string]string {
	out := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			out[kv.GetKey()] = x.StringValue
		default:
			out[kv.GetKey()] = v.String()
			if i, ok := x.(*commonpb.AnyValue_IntValue); ok {
				out[kv.GetKey()] = strconv.FormatInt(i.IntValue, 10)
			}
		}
	}
	return out
}

// Spans returns a copy of every span received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.spans)
}

// Refused lists the requests the receiver could not decode.
func (r *Receiver) Refused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.bad)
}

// Trace returns the spans of trace id, in start order.
func (r *Receiver) Trace(id string) []Span {
	var out []Span
	for _, s := range r.Spans() {
		if s.TraceID == id {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b Span) int { return a.Start.Compare(b.Start) })
	return out
}

// WaitFor polls until cond holds for the spans received, or fails t after
// timeout.
func (r *Receiver) WaitFor(t testing.TB, timeout time.Duration, what string, cond func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans := r.Spans()
		if cond(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s the receiver still lacks %s; %d spans received, refused: %v", timeout, what, len(spans), r.Refused())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
