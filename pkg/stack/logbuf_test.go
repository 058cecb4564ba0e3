package stack

import (
	"strings"
	"testing"
)

func TestLogBuffer(t *testing.T) {
	t.Parallel()
	t.Run("since a mark returns only what came after it", func(t *testing.T) {
		var b logBuffer
		_, _ = b.Write([]byte("before\n"))
		m := b.mark()
		_, _ = b.Write([]byte("after\n"))
		if got := b.since(m); got != "after\n" {
			t.Errorf("since = %q, want %q", got, "after\n")
		}
		if got := b.since(0); got != "before\nafter\n" {
			t.Errorf("since(0) = %q, want everything", got)
		}
	})
	t.Run("a full buffer drops its oldest output and keeps offsets absolute", func(t *testing.T) {
		var b logBuffer
		chunk := strings.Repeat("x", maxLogBytes/4)
		for range 4 {
			_, _ = b.Write([]byte(chunk))
		}
		m := b.mark()
		_, _ = b.Write([]byte("tail"))
		if got := b.since(m); got != "tail" {
			t.Errorf("since the mark = %q, want %q", got, "tail")
		}
		if got := len(b.since(0)); got > maxLogBytes {
			t.Errorf("the buffer keeps %d bytes, want at most %d", got, maxLogBytes)
		}
		if !strings.HasSuffix(b.since(0), "xtail") {
			t.Error("the newest output was dropped instead of the oldest")
		}
	})
}

func TestOutputGetsEveryLineBehindItsProgram(t *testing.T) {
	t.Parallel()
	var out strings.Builder
	b := logBuffer{copyTo: &linePrefixer{w: &out, prefix: "[jobs] "}}
	for _, chunk := range []string{"listening\nshut", "ting down\n", "no end yet"} {
		_, _ = b.Write([]byte(chunk))
	}
	if want := "[jobs] listening\n[jobs] shutting down\n"; out.String() != want {
		t.Errorf("output %q, want %q: whole lines only, each behind the name", out.String(), want)
	}
	if got := b.since(0); got != "listening\nshutting down\nno end yet" {
		t.Errorf("the log kept %q", got)
	}
}
