package stack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A 200 on a program's probe address from another process that took the
// port is not the program being ready: CI saw a stack declared up whose
// search-admin exited for "address already in use" a moment later.
func TestAProgramIsReadyOnlyOnceItSaysItListensWhereItAnswered(t *testing.T) {
	t.Parallel()
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer foreign.Close()
	addr := strings.TrimPrefix(foreign.URL, "http://")
	dir := t.TempDir()
	for name, script := range map[string]string{
		"lost-its-port": "echo 'listen tcp " + addr + ": bind: address already in use'; sleep 0.3; exit 1",
		"listens":       "sleep 0.2; echo 'level=INFO msg=listening addr=" + addr + "'; sleep 30",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+script+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	start := func(name string) *process {
		log := &logBuffer{}
		p, err := startProcess(dir, name, nil, log)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.cmd.Process.Kill(); <-p.done })
		p.ready, p.logsInfo = foreign.URL+"/readyz", true
		return p
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := waitReady(ctx, start("lost-its-port"), 0); err == nil || !strings.Contains(err.Error(), "exited before it was ready") {
		t.Errorf("a program that lost its port to a server answering 200: %v; want it found exited, not ready", err)
	}
	if err := waitReady(ctx, start("listens"), 0); err != nil {
		t.Errorf("a program that says it listens where the 200 came from: %v; want it ready", err)
	}
}

func TestLogsInfoReadsTheLastLogLevel(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]bool{
		"":                               true,
		"LOG_LEVEL=info":                 true,
		"LOG_LEVEL=DEBUG":                true,
		"LOG_LEVEL=warn":                 false,
		"LOG_LEVEL=info LOG_LEVEL=error": false,
		"LOG_LEVEL=warn LOG_LEVEL=info":  true,
	} {
		if got := logsInfo(strings.Fields(env)); got != want {
			t.Errorf("logsInfo(%q) = %v, want %v", env, got, want)
		}
	}
}
