package http_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/requestid"
	"github.com/municipal-apis/platform/pkg/server"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// downProvider is an embedding provider that never answers.
type downProvider struct{ embedding.Hash }

func (downProvider) Embed(context.Context, string, int) ([]float32, error) {
	return nil, errors.New("provider unreachable")
}

func TestAFailedRequestIsLoggedInTheConfiguredFormatWithItsRequestID(t *testing.T) {
	t.Parallel()
	logs := &logtest.Buffer{}
	app := wireApp(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), downProvider{}, "replica-logs",
		func(c *searchadmin.Config) {
			c.Logger = server.NewLogger(logs, server.LogConfig{Level: "info", Format: "json"})
		})
	resp := app.do(http.MethodGet, "/api/v1/search?q=iptu&mode=semantic", "reader", nil)
	id := resp.Header.Get(requestid.Header)
	if resp.Status != http.StatusServiceUnavailable || id == "" {
		t.Fatalf("semantic search with the provider down: %d (request id %q) %s", resp.Status, id, resp.Body)
	}
	var failed map[string]any
	// A slow statement's line carries its SQL: the synonym compile's, as
	// the replica starts, is hundreds of kilobytes.
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("LOG_FORMAT=json, yet a line is not JSON: %s", sc.Text())
		}
		if line["msg"] == "request failed" {
			failed = line
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("read the log: %v", err)
	}
	if failed == nil || failed["request_id"] != id || failed["status"] != float64(http.StatusServiceUnavailable) {
		t.Errorf("the failure's log line = %v, want a JSON line with status 503 and request_id %s; log:\n%s", failed, id, logs)
	}
}
