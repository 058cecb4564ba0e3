// Package http serves the search-admin API with gin: it decodes requests,
// calls the catalog service and encodes its answers. No SQL lives here.
package http

import (
	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// Scopes of the search-admin API (docs/decisions.md#realm-clients-and-scopes).
const (
	ScopeServicesRead    = "search:services:read"
	ScopeServicesWrite   = "search:services:write"
	ScopeMigrationsRead  = "search:migrations:read"
	ScopeMigrationsWrite = "search:migrations:write"
	ScopeSearch          = "search:read"
)

// Paths that answers point to.
const (
	// ServicesPath is the collection of Servicos; Location headers point below it.
	ServicesPath = "/api/v1/admin/services"
	// SynonymsPath is the collection of synonym rules.
	SynonymsPath = "/api/v1/admin/synonyms"
	// ReindexStatusPath reports the running re-index; a started one points to it.
	ReindexStatusPath = "/api/v1/admin/migration/status"
)

// API is what the routes serve.
type API struct {
	Catalog   *catalog.Service
	Synonyms  *catalog.Synonyms
	Search    *catalog.Searcher
	Reindexer *catalog.Reindexer
	Auth      auth.Authenticator // the token verifier, or a TokenCache of it
	// Idempotency wraps every POST so that a retried request runs once.
	Idempotency func(gin.HandlerFunc) gin.HandlerFunc
}

// Routes registers the API on e: every /api/v1 route behind the token
// verifier and its scope, and /openapi.json without a token.
func Routes(e *gin.Engine, api API) {
	h := &handler{svc: api.Catalog, synonyms: api.Synonyms, searcher: api.Search, reindexer: api.Reindexer}
	read, write := auth.RequireScope(ScopeServicesRead), auth.RequireScope(ScopeServicesWrite)
	reindexRead, reindexWrite := auth.RequireScope(ScopeMigrationsRead), auth.RequireScope(ScopeMigrationsWrite)
	v1 := e.Group("/api/v1", auth.Middleware(api.Auth), server.Preconditions)
	// Operations that read no query parameter refuse one (the lists and
	// search read theirs and refuse the rest); those that take no body
	// refuse one.
	none, noBody := server.RefuseQuery("unknown_field"), server.RefuseBody
	v1.GET("/search", auth.RequireScope(ScopeSearch), noBody, h.search)
	admin := v1.Group("/admin")
	admin.GET("/services", read, noBody, h.list)
	idem := api.Idempotency
	admin.POST("/services", write, none, idem(h.create))
	admin.GET("/services/:id", read, none, noBody, h.get)
	admin.PUT("/services/:id", write, none, h.replace)
	admin.DELETE("/services/:id", write, none, noBody, h.delete)
	admin.POST("/services/:id/publish", write, none, noBody, idem(h.setStatus(catalog.StatusPublished)))
	admin.POST("/services/:id/unpublish", write, none, noBody, idem(h.setStatus(catalog.StatusDraft)))
	admin.GET("/synonyms", read, noBody, h.listSynonyms)
	admin.POST("/synonyms", write, none, idem(h.createSynonym))
	admin.GET("/synonyms/:id", read, none, noBody, h.getSynonym)
	admin.PUT("/synonyms/:id", write, none, h.replaceSynonym)
	admin.DELETE("/synonyms/:id", write, none, noBody, h.deleteSynonym)
	admin.GET("/migration/schemas", reindexRead, none, noBody, h.schemas)
	admin.GET("/migration/status", reindexRead, none, noBody, h.reindexStatus)
	admin.GET("/migration/history", reindexRead, noBody, h.reindexHistory)
	admin.POST("/migration/start", reindexWrite, none, idem(h.startReindex))
	admin.POST("/migration/rollback", reindexWrite, none, noBody, idem(h.rollbackReindex))
	e.GET("/openapi.json", server.OpenAPI(OpenAPI))
}

type handler struct {
	svc       *catalog.Service
	synonyms  *catalog.Synonyms
	searcher  *catalog.Searcher
	reindexer *catalog.Reindexer
}
