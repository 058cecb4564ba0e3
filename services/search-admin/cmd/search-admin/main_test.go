package main

import (
	"context"
	"testing"

	"github.com/municipal-apis/platform/pkg/service"
	"github.com/municipal-apis/platform/services/search-admin/internal/app"
	"github.com/sethvargo/go-envconfig"
)

func TestRealMainRefusesAnUnknownSubcommand(t *testing.T) {
	t.Parallel()
	if err := service.Main(context.Background(), []string{"frobnicate"}, envconfig.MapLookuper(nil), app.LoadConfig, app.New, app.MigrationSets); err == nil {
		t.Error("the command accepted an unknown command")
	}
}
