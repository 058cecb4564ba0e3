package server

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"
)

// slogLine is what slog's JSON handler, behind contextHandler as NewLogger
// sets it up, writes for the access-log record l.
func slogLine(t testing.TB, l *requestLine) []byte {
	t.Helper()
	var out bytes.Buffer
	h := contextHandler{Handler: slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})}
	remote := l.remote
	if l.addr != nil {
		remote = l.addr.String()
	}
	r := slog.NewRecord(l.time, l.level, "request", 0)
	r.AddAttrs(
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.String("route", l.route),
		slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes),
		slog.Duration("duration", l.d),
		slog.String("remote", remote),
	)
	if err := h.Handle(l.ctx, r); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func checkRequestLine(t testing.TB, l *requestLine) {
	t.Helper()
	got, want := l.appendTo(nil), slogLine(t, l)
	if !bytes.Equal(got, want) {
		t.Fatalf("the access-log line differs from slog's\n got: %s\nwant: %s", got, want)
	}
}

// hostile strings a path, route, method or remote address might carry.
var hostile = []string{
	"", "/plain/path", `/quo"te/and\back\\slash`, "/new\nline\r\ttab", "/\x00\x01\x1f\x7f",
	"/inval\xffid/\xc3", "/\xed\xa0\x80surrogate", "/ünïcödé/日本/😀", "/sep\u2028ara\u2029tors",
	"/<html>&amp;", "/%2F%00", strings.Repeat("/a\"", 100), "\xf4\x90\x80\x80", "/\u00a0\ufeff\ufffd",
}

func TestRequestLineIsWhatSlogWrites(t *testing.T) {
	t.Parallel()
	tp := trace.SpanContextConfig{TraceID: trace.TraceID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xff}, SpanID: trace.SpanID{1}}
	traced := trace.ContextWithSpanContext(context.Background(), trace.NewSpanContext(tp))
	ctxs := map[string]context.Context{
		"no request id":              context.Background(),
		"request id":                 &scope{Context: context.Background(), id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"},
		"hostile request id":         &scope{Context: context.Background(), id: "a\"b\\c\n\xff"},
		"request id and trace":       &scope{Context: traced, id: "abc"},
		"trace without a request id": traced,
		"a caller":                   &scope{Context: traced, id: "abc", caller: caller{ClientID: "reader", Department: "educacao"}},
		"a refused caller":           &scope{Context: context.Background(), id: "abc", caller: caller{ClientID: "c\"\n\xff", Department: "/ünï", Limit: "department"}},
		"an address refused":         &scope{Context: context.Background(), id: "abc", caller: caller{Limit: "ip"}},
	}
	times := []time.Time{
		time.Date(2026, 11, 26, 19, 30, 0, 0, time.UTC),
		time.Date(2026, 11, 26, 19, 30, 1, 123456789, time.UTC),
		time.Date(2026, 11, 26, 19, 30, 1, 120000000, time.FixedZone("", -3*3600)),
		time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("X", 5*3600+30*60)),
		time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Now(), // local, with a monotonic reading
	}
	for name, ctx := range ctxs {
		for _, tm := range times {
			for _, level := range []slog.Level{slog.LevelInfo, slog.LevelError} {
				for _, s := range hostile {
					checkRequestLine(t, &requestLine{ctx: ctx, time: tm, level: level, method: "GET", path: s, route: "/go/v1", status: 200, bytes: 12, d: time.Millisecond, remote: "127.0.0.1:1"})
					checkRequestLine(t, &requestLine{ctx: ctx, time: tm, level: level, method: s, path: "/", route: s, status: -1, bytes: -1, d: -time.Second, remote: s})
				}
			}
		}
		t.Run(name, func(t *testing.T) {}) // names the contexts covered
	}
	// Random bytes and runes in every string field.
	rng := rand.New(rand.NewPCG(1, 2))
	random := func() string {
		var b []byte
		for range rng.IntN(40) {
			switch rng.IntN(3) {
			case 0:
				b = append(b, byte(rng.IntN(256)))
			case 1:
				b = append(b, byte(rng.IntN(128)))
			default:
				b = append(b, string(rune(rng.IntN(0x110000)))...)
			}
		}
		return string(b)
	}
	for range 5000 {
		checkRequestLine(t, &requestLine{ctx: ctxs["request id and trace"], time: times[1], level: slog.LevelInfo,
			method: random(), path: random(), route: random(), status: rng.IntN(600), bytes: rng.Int64(), d: time.Duration(rng.Int64()), remote: random()})
	}
}

// A client's address is written as its String, whatever its form.
func TestRequestLineAddressIsItsString(t *testing.T) {
	t.Parallel()
	addrs := []net.Addr{
		&net.TCPAddr{IP: net.IPv4(192, 168, 1, 20), Port: 54321},
		&net.TCPAddr{IP: net.IP{10, 0, 0, 1}, Port: 80},
		&net.TCPAddr{IP: net.ParseIP("2001:db8::1"), Port: 443},
		&net.TCPAddr{IP: net.ParseIP("::ffff:10.1.2.3"), Port: 1},
		&net.TCPAddr{IP: net.ParseIP("::"), Port: 0},
		&net.TCPAddr{IP: net.ParseIP("fe80::1"), Port: 8080, Zone: "eth0"},
		&net.TCPAddr{Port: 9},
		&net.TCPAddr{IP: net.IP{1, 2, 3}, Port: 9},
		&net.TCPAddr{IP: net.IPv4(1, 2, 3, 4), Port: -1},
		(*net.TCPAddr)(nil),
		&net.UDPAddr{IP: net.IPv4(1, 2, 3, 4), Port: 53},
		&net.UnixAddr{Name: "/run/\"sock\n", Net: "unix"},
		net.TCPAddrFromAddrPort(netip.MustParseAddrPort("[2001:db8::ff]:65535")),
	}
	for _, a := range addrs {
		checkRequestLine(t, &requestLine{ctx: context.Background(), time: time.Unix(1, 0), level: slog.LevelInfo, method: "GET", path: "/", addr: a})
	}
}

func FuzzRequestLine(f *testing.F) {
	for _, s := range hostile {
		f.Add(s, int64(0))
	}
	f.Fuzz(func(t *testing.T, s string, n int64) {
		checkRequestLine(t, &requestLine{ctx: &scope{Context: context.Background(), id: s}, time: time.Unix(0, n), level: slog.LevelInfo,
			method: s, path: s, route: s, status: int(n), bytes: n, d: time.Duration(n), remote: s})
	})
}

// TestAccessLogLineThroughTheLogBuffer checks logRequest's own path: the
// platform's JSON logger in front of a LogBuffer writes the line by hand,
// the same bytes as slog for the same record, and still honours the level.
func TestAccessLogLineThroughTheLogBuffer(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	buf := NewLogBuffer(&out, time.Hour)
	logger := NewLogger(buf, LogConfig{Level: "info", Format: "json"})
	if h, ok := logger.Handler().(contextHandler); !ok || h.requests == nil {
		t.Fatal("the JSON logger in front of a LogBuffer does not write access-log lines itself")
	}
	ctx := &scope{Context: context.Background(), id: "req-1"}
	logRequest(ctx, logger, "GET", "/a\"b\xff", "/go/v1", 200, 5, time.Millisecond, "", &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 2})
	logRequest(ctx, logger, "POST", "/x", "/go/v1", 503, -1, time.Second, "10.0.0.1:3", nil)
	logger.InfoContext(ctx, "other") // slog's own path, in order with the lines around it
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(out.String(), "\n")
	if len(lines) != 4 || lines[3] != "" {
		t.Fatalf("log:\n%s", out.String())
	}
	for i, want := range []requestLine{
		{level: slog.LevelInfo, method: "GET", path: "/a\"b\xff", route: "/go/v1", status: 200, bytes: 5, d: time.Millisecond, remote: "10.0.0.1:2"},
		{level: slog.LevelError, method: "POST", path: "/x", route: "/go/v1", status: 503, bytes: -1, d: time.Second, remote: "10.0.0.1:3"},
	} {
		// The line's own time, read back, is the record's.
		ts, _, _ := strings.Cut(strings.TrimPrefix(lines[i], `{"time":"`), `"`)
		tm, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t.Fatal(err)
		}
		want.ctx, want.time = ctx, tm
		if w := slogLine(t, &want); lines[i] != string(w) {
			t.Errorf("line %d\n got: %s\nwant: %s", i, lines[i], w)
		}
	}
	if !strings.Contains(lines[2], `"msg":"other","request_id":"req-1"`) {
		t.Errorf("slog's line: %s", lines[2])
	}

	// Below the logger's level nothing is written.
	out.Reset()
	buf = NewLogBuffer(&out, time.Hour)
	logger = NewLogger(buf, LogConfig{Level: "error", Format: "json"})
	logRequest(ctx, logger, "GET", "/quiet", "/go/v1", 200, 5, time.Millisecond, "10.0.0.1:2", nil)
	logRequest(ctx, logger, "GET", "/loud", "/go/v1", 500, 5, time.Millisecond, "10.0.0.1:2", nil)
	_ = buf.Close()
	if s := out.String(); strings.Contains(s, "/quiet") || !strings.Contains(s, `"level":"ERROR","msg":"request","method":"GET","path":"/loud"`) {
		t.Errorf("at level error the log is:\n%s", s)
	}

	// A logger with attributes of its own goes through slog.
	if h, ok := logger.With("k", "v").Handler().(contextHandler); !ok || h.requests != nil {
		t.Error("a logger with attributes of its own bypasses slog")
	}
}

// A request served by a FastHandler whose logger is the gateway's (JSON in
// front of a LogBuffer) is logged with the bytes slog would write.
func TestFastHandlerAccessLogLineIsWhatSlogWrites(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	buf := NewLogBuffer(&out, time.Hour)
	logger := NewLogger(buf, LogConfig{Level: "info", Format: "json"})
	h := NewFastHandler(FastOptions{Logger: logger, Metrics: NewMetrics(), App: func(c *fasthttp.RequestCtx) {
		SetFastRoute(c, "/go/v1")
		c.SetStatusCode(201)
		c.SetBodyString("hello")
	}})
	remote := &net.TCPAddr{IP: net.ParseIP("2001:db8::7"), Port: 40000}
	var req fasthttp.Request
	req.SetRequestURI(`/go/v1/a%22b/%C3%A9t%C3%A9/%E2%80%A8?q=1`)
	req.Header.SetMethod("PATCH")
	var c fasthttp.RequestCtx
	c.Init(&req, remote, nil)
	h.Serve(&c)
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	line := out.String()
	ts, _, _ := strings.Cut(strings.TrimPrefix(line, `{"time":"`), `"`)
	tm, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil {
		t.Fatalf("%v: %s", err, line)
	}
	id := string(c.Response.Header.Peek("X-Request-Id"))
	want := slogLine(t, &requestLine{
		ctx: &scope{Context: context.Background(), id: id}, time: tm, level: slog.LevelInfo,
		method: "PATCH", path: "/go/v1/a\"b/été/\u2028", route: "/go/v1", status: 201, bytes: 5, d: mustDuration(t, line), remote: remote.String(),
	})
	if line != string(want) {
		t.Fatalf("the access-log line differs from slog's\n got: %s\nwant: %s", line, want)
	}
}

// mustDuration reads the duration field of a log line.
func mustDuration(t *testing.T, line string) time.Duration {
	t.Helper()
	var v struct{ Duration int64 }
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	return time.Duration(v.Duration)
}
