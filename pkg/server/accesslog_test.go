package server

import (
	"bytes"
	"context"
	"log/slog"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// slogLine is what slog's JSON handler, behind contextHandler as NewLogger
// sets it up, writes for the access-log record l.
func slogLine(t testing.TB, l *requestLine) []byte {
	t.Helper()
	var out bytes.Buffer
	h := contextHandler{Handler: slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug})}
	r := slog.NewRecord(l.time, l.level, "request", 0)
	r.AddAttrs(
		slog.String("method", l.method),
		slog.String("path", l.path),
		slog.String("route", l.route),
		slog.Int("status", l.status),
		slog.Int64("bytes", l.bytes),
		slog.Duration("duration", l.d),
		slog.String("remote", l.remote),
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
	logRequest(ctx, logger, "GET", "/a\"b\xff", "/go/v1", 200, 5, time.Millisecond, "10.0.0.1:2")
	logRequest(ctx, logger, "POST", "/x", "/go/v1", 503, -1, time.Second, "10.0.0.1:3")
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
	logRequest(ctx, logger, "GET", "/quiet", "/go/v1", 200, 5, time.Millisecond, "10.0.0.1:2")
	logRequest(ctx, logger, "GET", "/loud", "/go/v1", 500, 5, time.Millisecond, "10.0.0.1:2")
	_ = buf.Close()
	if s := out.String(); strings.Contains(s, "/quiet") || !strings.Contains(s, `"level":"ERROR","msg":"request","method":"GET","path":"/loud"`) {
		t.Errorf("at level error the log is:\n%s", s)
	}

	// A logger with attributes of its own goes through slog.
	if h, ok := logger.With("k", "v").Handler().(contextHandler); !ok || h.requests != nil {
		t.Error("a logger with attributes of its own bypasses slog")
	}
}
