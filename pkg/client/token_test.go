package client_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/client"
	"github.com/municipal-apis/platform/pkg/devidp/devidptest"
)

func TestTokenIsFetchedOnceAndReused(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusOK, map[string]any{"data": []any{}, "meta": map[string]any{"page": 1, "per_page": 20, "total": 0}}))
	a := newAPI(t, routeAll(s))
	c := mustClient(t, a.config(t, devidptest.JobsAdmin))
	for range 5 {
		if _, err := c.ListEmpregos(context.Background(), client.ListOptions{}); err != nil {
			t.Fatalf("ListEmpregos: %v", err)
		}
	}
	if got := a.tokenFetches.Load(); got != 1 {
		t.Errorf("token requests = %d, want 1 for five calls", got)
	}
	for i, r := range s.requests() {
		if r.clientID != devidptest.JobsAdmin {
			t.Errorf("request %d was authenticated as %q, want %q", i, r.clientID, devidptest.JobsAdmin)
		}
	}
}

func TestTokenIsFetchedAgainWhenItExpires(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusOK, map[string]any{"current_version": "v2"}))
	// A token that lives less than oauth2's 10 s expiry margin is stale at once.
	a := newAPI(t, routeAll(s), devidptest.WithTokenTTL(5*time.Second))
	c := mustClient(t, a.config(t, devidptest.CatalogAdmin))
	for range 3 {
		if _, err := c.SchemaVersions(context.Background()); err != nil {
			t.Fatalf("SchemaVersions: %v", err)
		}
	}
	if got := a.tokenFetches.Load(); got != 3 {
		t.Errorf("token requests = %d, want 3: one per call for a token about to expire", got)
	}
}

func TestTokenRefusedByTheIdentityProvider(t *testing.T) {
	t.Parallel()
	s := newScript(ok(http.StatusOK, map[string]any{}))
	a := newAPI(t, routeAll(s))
	cfg := a.config(t, devidptest.JobsAdmin)
	cfg.ClientSecret = "not-the-secret"
	var w waits
	fixedClock(&cfg, time.Now(), &w)
	c := mustClient(t, cfg)

	_, err := c.GetEmprego(context.Background(), 1)
	if err == nil || !strings.Contains(err.Error(), "invalid_client") {
		t.Fatalf("err = %v, want the identity provider's invalid_client", err)
	}
	if got := a.tokenFetches.Load(); got != 1 {
		t.Errorf("token requests = %d, want 1: a refused client is not retried", got)
	}
	if n := len(s.requests()); n != 0 {
		t.Errorf("the API saw %d requests, want none without a token", n)
	}
}

func TestTokenCarriesTheRequestedScopes(t *testing.T) {
	t.Parallel()
	a := newAPI(t, routeAll(newScript(ok(http.StatusOK, map[string]any{}))))
	cfg := a.config(t, devidptest.Reader)
	cfg.Scopes = []string{"jobs:read"}
	c := mustClient(t, cfg)
	tok, err := c.Token(context.Background())
	if err != nil {
		t.Fatalf("Token: %v", err)
	}
	if got := tok.Extra("scope"); got != "jobs:read" {
		t.Errorf("scope of the token response = %v, want jobs:read", got)
	}
	if tok.AccessToken == "" || !tok.Valid() {
		t.Errorf("token = %+v, want a valid access token", tok)
	}
}
