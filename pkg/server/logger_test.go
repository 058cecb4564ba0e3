package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/requestid"
	"github.com/municipal-apis/platform/pkg/server"
)

func TestFailuresAreLoggedInTheProgramsFormatWithTheRequestID(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	engine := server.NewGin()
	engine.GET("/fail", func(c *gin.Context) { problem.Abort(c, errors.New("the database exploded")) })
	engine.GET("/panic", func(c *gin.Context) { panic("boom") })
	h := server.Handler(server.Options{
		Logger:  server.NewLogger(&logs, server.LogConfig{Level: "info", Format: "json"}),
		Metrics: server.NewMetrics(), App: engine, MaxBodyBytes: 64,
	})
	for path, message := range map[string]string{"/fail": "request failed", "/panic": "panic"} {
		t.Run(message+" is a JSON line with the request id", func(t *testing.T) {
			logs.Reset()
			w := serve(h, http.MethodGet, path, "", nil)
			id := w.Header().Get(requestid.Header)
			if w.Code != http.StatusInternalServerError || id == "" {
				t.Fatalf("status %d, request id %q", w.Code, id)
			}
			found := false
			for sc := bufio.NewScanner(&logs); sc.Scan(); {
				var line map[string]any
				if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
					t.Fatalf("a log line is not JSON: %s", sc.Text())
				}
				if line["msg"] == message {
					found = true
					if line["request_id"] != id {
						t.Errorf("%q carries request_id %v, want %s", message, line["request_id"], id)
					}
				}
			}
			if !found {
				t.Errorf("no %q line in the program's log", message)
			}
		})
	}
}
