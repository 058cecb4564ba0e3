// Package http serves the search-admin API with gin: it decodes requests,
// calls the catalog service and encodes its answers. No SQL lives here.
package http

import (
	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Scopes of the search-admin API (DECISIONS §2).
const (
	ScopeServicesRead   = "search:services:read"
	ScopeServicesWrite  = "search:services:write"
	ScopeMigrationsRead = "search:migrations:read"
)

// ServicesPath is the collection of Servicos; Location headers point below it.
const ServicesPath = "/api/v1/admin/services"

// Routes registers the API on e: every /api/v1 route behind verifier and
// its scope, and /openapi.json without a token.
func Routes(e *gin.Engine, svc *catalog.Service, verifier *auth.Verifier) {
	h := &handler{svc: svc}
	read, write := auth.RequireScope(ScopeServicesRead), auth.RequireScope(ScopeServicesWrite)
	admin := e.Group("/api/v1/admin", auth.Middleware(verifier))
	admin.GET("/services", read, h.list)
	admin.POST("/services", write, h.create)
	admin.GET("/services/:id", read, h.get)
	admin.PUT("/services/:id", write, h.replace)
	admin.DELETE("/services/:id", write, h.delete)
	admin.POST("/services/:id/publish", write, h.setStatus(catalog.StatusPublished))
	admin.POST("/services/:id/unpublish", write, h.setStatus(catalog.StatusDraft))
	admin.GET("/migration/schemas", auth.RequireScope(ScopeMigrationsRead), h.schemas)
	e.GET("/openapi.json", serveOpenAPI)
}

type handler struct {
	svc *catalog.Service
}
