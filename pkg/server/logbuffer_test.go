package server_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/server"
)

// lockedBuffer is the underlying writer, read while the flusher writes.
type lockedBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	writes int
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes++
	return l.b.Write(p)
}

func (l *lockedBuffer) read() (string, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String(), l.writes
}

func TestLogBufferBatchesWholeLinesAndLosesNothingOnClose(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	buf := server.NewLogBuffer(&out, time.Hour) // only Close flushes here
	logger := server.NewLogger(buf, server.LogConfig{Level: "info", Format: "json"})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 100 {
				logger.Info("request", slog.Int("g", g), slog.Int("i", i), slog.String("pad", strings.Repeat("x", 100)))
			}
		})
	}
	wg.Wait()
	if _, writes := out.read(); writes >= 800 {
		t.Fatalf("%d writes for 800 lines: nothing was batched", writes)
	}
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	text, writes := out.read()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if len(lines) != 800 {
		t.Fatalf("%d lines after Close, want 800", len(lines))
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "{") || !strings.HasSuffix(l, "}") {
			t.Fatalf("a line was split or mixed: %q", l)
		}
	}
	// One write per 64 KiB buffer, the first line's own (written at once,
	// the buffer being idle), and Close's.
	if writes > 800*160/(64<<10)+3 {
		t.Errorf("%d writes for %d bytes, want one per 64 KiB buffer and the first line's", writes, len(text))
	}
}

func TestLogBufferFlushesOnItsInterval(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	buf := server.NewLogBuffer(&out, 10*time.Millisecond)
	defer buf.Close()
	if _, err := buf.Write([]byte("one line\n")); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if text, _ := out.read(); text == "one line\n" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a buffered line never reached the writer")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestLogBufferWritesTheFirstLineAfterQuietAtOnce: the first line of a
// program (or of a request after a quiet interval) reaches the output at
// once, so a program that has just started is never silent for an
// interval; the lines that follow it within the interval are batched.
func TestLogBufferWritesTheFirstLineAfterQuietAtOnce(t *testing.T) {
	t.Parallel()
	var out lockedBuffer
	buf := server.NewLogBuffer(&out, time.Hour)
	defer buf.Close()
	if _, err := buf.Write([]byte("first\n")); err != nil {
		t.Fatal(err)
	}
	if text, _ := out.read(); text != "first\n" {
		t.Fatalf("after the first line the output holds %q, want it written at once", text)
	}
	if _, err := buf.Write([]byte("second\n")); err != nil {
		t.Fatal(err)
	}
	if text, writes := out.read(); text != "first\n" || writes != 1 {
		t.Fatalf("the line that follows within the interval was written at once (%q, %d writes); want it batched", text, writes)
	}
}

// gatedWriter blocks every write after the first until release is closed,
// as a pipe a slow collector drains would, telling entered when it does.
type gatedWriter struct {
	lockedBuffer
	entered chan struct{}
	release chan struct{}
	once    sync.Once
	first   bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	if g.first {
		g.once.Do(func() { close(g.entered) })
		<-g.release
	}
	g.first = true
	return g.lockedBuffer.Write(p)
}

// A line logged while a full batch is being written to a slow destination
// does not wait for that write: the gateway logs each request before its
// answer goes out, so a stalled log write once held every answer back.
func TestLogBufferDoesNotHoldLinesBehindASlowWrite(t *testing.T) {
	t.Parallel()
	out := &gatedWriter{entered: make(chan struct{}), release: make(chan struct{})}
	buf := server.NewLogBuffer(out, time.Hour)
	if _, err := buf.Write([]byte("first\n")); err != nil { // written at once: the buffer is idle
		t.Fatal(err)
	}
	line := []byte(strings.Repeat("x", 99) + "\n")
	filled := make(chan struct{})
	go func() {
		defer close(filled)
		for range (64 << 10) / len(line) * 2 { // two batches: the first one's write stalls
			_, _ = buf.Write(line)
		}
	}()
	select {
	case <-out.entered:
	case <-time.After(10 * time.Second):
		t.Fatal("a full batch was never written")
	}
	wrote := make(chan error, 1)
	go func() { _, err := buf.Write([]byte("during\n")); wrote <- err }()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a line waited for the stalled write of the batch before it")
	}
	select { // the lines behind the stalled write were all taken too
	case <-filled:
	case <-time.After(10 * time.Second):
		t.Fatal("lines written behind a stalled write waited for it")
	}
	close(out.release)
	if err := buf.Close(); err != nil {
		t.Fatal(err)
	}
	text, _ := out.read()
	if !strings.HasPrefix(text, "first\n") || strings.Count(text, "\n") != 2+(64<<10)/len(line)*2 || !strings.Contains(text, "during\n") {
		t.Fatalf("the output lost or mixed lines: %d lines", strings.Count(text, "\n"))
	}
}
