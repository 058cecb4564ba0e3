package main

import (
	"context"
	"testing"

	"github.com/sethvargo/go-envconfig"
)

func TestRealMainRefusesAnUnknownSubcommand(t *testing.T) {
	t.Parallel()
	if err := realMain(context.Background(), []string{"frobnicate"}, envconfig.MapLookuper(nil)); err == nil {
		t.Error("realMain accepted an unknown command")
	}
}
