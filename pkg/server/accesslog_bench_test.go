package server

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// BenchmarkAccessLogLine measures the access-log line of one request as the
// gateway writes it: the platform's JSON logger in front of a LogBuffer, a
// request scope carrying the request id.
func BenchmarkAccessLogLine(b *testing.B) {
	buf := NewLogBuffer(io.Discard, time.Hour)
	defer buf.Close()
	logger := NewLogger(buf, LogConfig{Level: "info", Format: "json"})
	s := &scope{Context: context.Background(), id: "0193a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", logger: logger}
	remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 54321}
	b.ReportAllocs()
	for b.Loop() {
		logRequest(s, logger, "GET", "/go/v1/api/v1/empregos", "/go/v1", 200, 1234, 1234567*time.Nanosecond, "", remote)
	}
}
