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
// server.Handler, which adds the probes, request ids, access logs, metrics,
// panic recovery and the body limit.
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
	h := server.Handler(server.Options{
		Logger:       logger,
		Metrics:      server.NewMetrics(),
		App:          engine,
		MaxBodyBytes: 1 << 20,
		Checks: []server.Check{
			{Name: "postgres", Critical: true, Probe: func(context.Context) error { return nil }},
		},
	})

	for _, path := range []string{"/livez", "/readyz", "/api/v1/empregos"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
		fmt.Println(path, rec.Code)
	}
	// Output:
	// /livez 200
	// /readyz 200
	// /api/v1/empregos 401
}
