package server_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/server"
)

// ExampleHandler wires a service the way every program's internal/app does:
// a gin engine with the API behind the token verifier and its scopes, inside
// server.Handler, which adds /livez, request ids, access logs, metrics,
// panic recovery and the body limit; the readiness checks and the metrics
// are served by server.AdminHandler on the admin listener.
func ExampleHandler() {
	logger := slog.New(slog.DiscardHandler)
	verifier, err := auth.NewVerifier(auth.Config{ // contacts nobody until a token arrives
		IssuerURL: "http://127.0.0.1:8090/auth/realms/municipal",
		Logger:    logger,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	engine := server.NewGin() // problem 404/405, route labels
	api := engine.Group("/api/v1", auth.Middleware(verifier))
	api.GET("/empregos", auth.RequireScope("jobs:read"), func(c *gin.Context) {
		c.JSON(http.StatusOK, gin.H{"data": []any{}})
	})
	metrics := server.NewMetrics()
	public := server.Handler(server.Options{Logger: logger, Metrics: metrics, App: engine, MaxBodyBytes: 1 << 20})
	admin := server.AdminHandler(server.AdminOptions{Logger: logger, Metrics: metrics, Checks: []server.Check{
		{Name: "postgres", Critical: true, Probe: func(context.Context) error { return nil }},
	}})

	for _, call := range []struct {
		port string
		h    http.Handler
		path string
	}{{"public", public, "/livez"}, {"public", public, "/api/v1/empregos"}, {"public", public, "/readyz"}, {"admin", admin, "/readyz"}} {
		rec := httptest.NewRecorder()
		call.h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, call.path, nil))
		fmt.Println(call.port, call.path, rec.Code)
	}
	// Output:
	// public /livez 200
	// public /api/v1/empregos 401
	// public /readyz 404
	// admin /readyz 200
}
