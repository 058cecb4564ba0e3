package main

import (
	"context"
	"testing"
	"testing/fstest"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/pkg/pg"
	"github.com/municipal-apis/platform/pkg/pgtest"
	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/jobs/internal/app"
)

func TestMigrateAppliesTheServiceAndIdempotencySets(t *testing.T) {
	t.Parallel()
	dsn := pgtest.NewURL(t, fstest.MapFS{})
	env := envconfig.MapLookuper(map[string]string{
		"DATABASE_URL": dsn, "DATABASE_MAX_OPEN_CONNS": "2", "DATABASE_MAX_IDLE_CONNS": "1", "LOG_LEVEL": "error",
	})
	for range 2 { // a second run finds nothing to do
		if err := service.Main(context.Background(), []string{"migrate"}, env, app.LoadConfig, app.New, app.MigrationSets); err != nil {
			t.Fatal(err)
		}
	}
	db, err := pg.Open(context.Background(), pg.Config{URL: dsn, MaxOpenConns: 2, MaxIdleConns: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close(db)
	tests := []struct{ name, table string }{
		{"the service's tables exist", "categorias"},
		{"the service's versions are in goose's default table", "goose_db_version"},
		{"the idempotency keys table exists", "idempotency_keys"},
		{"the idempotency versions have their own table", "goose_idempotency"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var exists bool
			if err := db.Raw(`SELECT to_regclass(?) IS NOT NULL`, tt.table).Scan(&exists).Error; err != nil {
				t.Fatal(err)
			}
			if !exists {
				t.Errorf("table %s is missing", tt.table)
			}
		})
	}
}
