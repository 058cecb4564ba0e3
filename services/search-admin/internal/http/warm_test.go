package http_test

import (
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
	"github.com/municipal-apis/platform/pkg/idempotency"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/pgtest"
	searchadmin "github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/municipal-apis/platform/services/search-admin/internal/embedding"
	"github.com/municipal-apis/platform/services/search-admin/migrations"
)

// A replica compiles its synonym rules as it starts, before it serves:
// compiled by the first search instead, they held every search that came
// meanwhile behind a lock for about a second, the mixed load's search p99.
func TestSynonymRulesAreCompiledBeforeTheFirstSearch(t *testing.T) {
	t.Parallel()
	var logs logtest.Buffer
	newAppOn(t, pgtest.NewURL(t, migrations.FS, idempotency.MigrationSet), devidptest.Start(t), embedding.Hash{}, func(c *searchadmin.Config) {
		c.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	})
	var line struct {
		Msg   string `json:"msg"`
		Rules int    `json:"rules"`
	}
	for l := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(l, `"synonym rules compiled"`) {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatal(err)
			}
		}
	}
	if line.Rules < 300 {
		t.Fatalf("no start-up line says the shipped synonym rules were compiled (got %+v):\n%s", line, logs.String())
	}
}
