package e2e_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/stack"
	"github.com/municipal-apis/platform/pkg/telemetry/telemetrytest"
)

// tracedStack is a stack whose programs export their spans over OTLP/HTTP
// to rcv, configured only by the OTEL_* variables.
func tracedStack(t *testing.T, rcv *telemetrytest.Receiver) *stack.Stack {
	t.Helper()
	env := []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + rcv.Endpoint(),
		"OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
		"OTEL_BSP_SCHEDULE_DELAY=100", // export within 0.1 s, not the default 5 s
	}
	return stack.StartT(t, stack.Options{Env: map[string][]string{
		stack.Gateway: env, stack.Jobs: env, stack.SearchAdmin: env,
	}})
}

// send makes one request through the gateway with a bearer token and, when
// traceparent is not empty, the client's trace context.
func send(t *testing.T, method, url, token, body, traceparent string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	if traceparent != "" {
		req.Header.Set("Traceparent", traceparent)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// describe renders a trace as an indented tree with each span's duration.
func describe(spans []telemetrytest.Span) string {
	children := map[string][]telemetrytest.Span{}
	ids := map[string]bool{}
	for _, s := range spans {
		ids[s.SpanID] = true
	}
	var roots []telemetrytest.Span
	for _, s := range spans {
		if ids[s.ParentID] {
			children[s.ParentID] = append(children[s.ParentID], s)
		} else {
			roots = append(roots, s)
		}
	}
	var b strings.Builder
	var walk func(s telemetrytest.Span, depth int, start time.Time)
	walk = func(s telemetrytest.Span, depth int, start time.Time) {
		extra := ""
		if _, prepared := s.Attrs["pgx.prepare_stmt.name"]; prepared {
			extra = " (prepare)"
		}
		if q := s.Attrs["db.query.text"]; q != "" {
			q = strings.Join(strings.Fields(q), " ")
			if len(q) > 70 {
				q = q[:70] + "…"
			}
			extra += "  " + q
		}
		fmt.Fprintf(&b, "%s%-*s %-13s +%-9s %9s%s\n", strings.Repeat("  ", depth), 34-2*depth, s.Name, s.Service,
			s.Start.Sub(start).Round(10*time.Microsecond), s.Duration().Round(10*time.Microsecond), extra)
		for _, c := range children[s.SpanID] {
			walk(c, depth+1, start)
		}
	}
	for _, r := range roots {
		walk(r, 0, r.Start)
	}
	return b.String()
}

func TestOneRequestIsOneTraceFromTheGatewayToTheSQL(t *testing.T) {
	t.Parallel()
	rcv := telemetrytest.Start(t)
	s := tracedStack(t, rcv)
	token, err := s.Token(t.Context(), "jobs-admin")
	if err != nil {
		t.Fatal(err)
	}
	const clientTrace = "0af7651916cd43dd8448eb211c80319c"
	const clientSpan = "b7ad6b7169203331"
	resp, body := send(t, http.MethodPost, s.JobsBaseURL()+"/api/v1/empregos", token,
		`{"titulo": "Auxiliar administrativo `+unique("trace")+`", "tipo_contratacao": "CLT", "numero_vagas": 2}`,
		"00-"+clientTrace+"-"+clientSpan+"-01")
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("POST empregos: %d %s", resp.StatusCode, body)
	}
	var created struct{ ID int64 }
	if err := json.Unmarshal(body, &created); err != nil || created.ID <= 0 {
		t.Fatalf("created %s: %v", body, err)
	}

	spans := rcv.WaitFor(t, 20*time.Second, "the gateway's, the service's and the SQL spans of the request", func(all []telemetrytest.Span) bool {
		var gw, svc, insert bool
		for _, sp := range all {
			if sp.TraceID != clientTrace {
				continue
			}
			gw = gw || sp.Service == "gateway" && sp.Name == "POST /go/v1"
			svc = svc || sp.Service == "jobs" && sp.Name == "POST /api/v1/empregos"
			insert = insert || sp.Service == "jobs" && sp.Attrs["db.operation.name"] == "INSERT"
		}
		return gw && svc && insert
	})
	trace := rcv.Trace(clientTrace)
	t.Logf("the trace of POST /go/v1/api/v1/empregos:\n%s", describe(trace))
	byID := map[string]telemetrytest.Span{}
	for _, sp := range spans {
		byID[sp.SpanID] = sp
	}
	find := func(service, name string) telemetrytest.Span {
		t.Helper()
		for _, sp := range trace {
			if sp.Service == service && sp.Name == name {
				return sp
			}
		}
		t.Fatalf("no span %q of %s in the trace:\n%s", name, service, describe(trace))
		return telemetrytest.Span{}
	}
	gwServer := find("gateway", "POST /go/v1")
	gwClient := find("gateway", "POST")
	svcServer := find("jobs", "POST /api/v1/empregos")
	if gwServer.ParentID != clientSpan {
		t.Errorf("the gateway's span has parent %s, want the client's %s", gwServer.ParentID, clientSpan)
	}
	if gwClient.ParentID != gwServer.SpanID {
		t.Errorf("the upstream call's parent is %s, want the gateway's server span %s", gwClient.ParentID, gwServer.SpanID)
	}
	if svcServer.ParentID != gwClient.SpanID {
		t.Errorf("the service's span has parent %s (%s), want the gateway's upstream call %s", svcServer.ParentID, byID[svcServer.ParentID].Name, gwClient.SpanID)
	}
	var sql []telemetrytest.Span
	for _, sp := range trace {
		if sp.Attrs["db.system.name"] != "postgresql" {
			continue
		}
		sql = append(sql, sp)
		if sp.Attrs["db.system"] != "postgresql" || sp.Attrs["db.query.text"] == "" || sp.Service != "jobs" {
			t.Errorf("SQL span %q: attributes %v", sp.Name, sp.Attrs)
		}
		// Every statement runs inside the service's request span.
		for p := byID[sp.ParentID]; ; p = byID[p.ParentID] {
			if p.SpanID == svcServer.SpanID {
				break
			}
			if p.SpanID == "" {
				t.Errorf("SQL span %q is not below the service's request span", sp.Name)
				break
			}
		}
	}
	if !slices.ContainsFunc(sql, func(sp telemetrytest.Span) bool { return sp.Attrs["db.operation.name"] == "INSERT" }) {
		t.Errorf("no INSERT among the SQL spans %v", sql)
	}
	for _, sp := range trace {
		for k, v := range sp.Attrs {
			// The token, the posting's words and the caller's identity; the
			// department, "trabalho", is also a column name (jornada_trabalho).
			for _, leak := range []string{token, "Auxiliar", "jobs-admin"} {
				if strings.Contains(v, leak) {
					t.Errorf("span %q of %s: attribute %s carries %q", sp.Name, sp.Service, k, leak)
				}
			}
		}
	}

	t.Run("a second POST, on warm connections, is the same trace without the connection set-up", func(t *testing.T) {
		const warmTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
		resp, body := send(t, http.MethodPost, s.JobsBaseURL()+"/api/v1/empregos", token,
			`{"titulo": "Auxiliar administrativo `+unique("warm")+`", "tipo_contratacao": "CLT", "numero_vagas": 1}`,
			"00-"+warmTrace+"-00f067aa0ba902b7-01")
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("POST empregos: %d %s", resp.StatusCode, body)
		}
		names := []string{"POST /go/v1", "POST", "POST /api/v1/empregos", "BEGIN", "INSERT", "COMMIT"}
		rcv.WaitFor(t, 20*time.Second, "every span of the second POST", func([]telemetrytest.Span) bool {
			warm := rcv.Trace(warmTrace)
			for _, name := range names {
				if !slices.ContainsFunc(warm, func(sp telemetrytest.Span) bool { return sp.Name == name }) {
					return false
				}
			}
			return true
		})
		t.Logf("the trace of a second POST /go/v1/api/v1/empregos:\n%s", describe(rcv.Trace(warmTrace)))
	})

	t.Run("the access logs and a problem body name the trace", func(t *testing.T) {
		mark := s.Mark()
		resp, body := send(t, http.MethodPost, s.JobsBaseURL()+"/api/v1/empregos", token, `{"titulo": ""}`, "")
		if resp.StatusCode != http.StatusUnprocessableEntity {
			t.Fatalf("status %d %s", resp.StatusCode, body)
		}
		var p struct {
			RequestID string `json:"request_id"`
			TraceID   string `json:"trace_id"`
		}
		if err := json.Unmarshal(body, &p); err != nil || len(p.TraceID) != 32 || p.RequestID == "" {
			t.Fatalf("problem body %s: want trace_id beside request_id", body)
		}
		rcv.WaitFor(t, 20*time.Second, "the spans of the 422", func([]telemetrytest.Span) bool {
			tr := rcv.Trace(p.TraceID)
			return slices.ContainsFunc(tr, func(sp telemetrytest.Span) bool { return sp.Service == "jobs" }) &&
				slices.ContainsFunc(tr, func(sp telemetrytest.Span) bool { return sp.Service == "gateway" })
		})
		logs := s.LogsSince(mark)
		lines, program := map[string][]string{}, ""
		for _, line := range strings.Split(logs, "\n") {
			if name, ok := strings.CutPrefix(line, "----- "); ok {
				program = strings.TrimSuffix(name, " -----")
				continue
			}
			lines[program] = append(lines[program], line)
		}
		for _, program := range []string{stack.Gateway, stack.Jobs} {
			found := slices.ContainsFunc(lines[program], func(line string) bool {
				return strings.Contains(line, "msg=request") && strings.Contains(line, "trace_id="+p.TraceID)
			})
			if !found {
				t.Errorf("no access log line of %s names trace %s:\n%s", program, p.TraceID, logs)
			}
		}
	})
}
