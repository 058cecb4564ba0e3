package server

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
)

// NewGin returns a gin engine in release mode that reports its route
// templates to logs and metrics and answers unknown routes and methods with
// problem responses instead of gin's plain-text defaults.
func NewGin() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	e.Use(func(c *gin.Context) {
		SetRoute(c.Request, c.FullPath())
		c.Next()
	})
	e.NoRoute(func(c *gin.Context) {
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "no resource at %s", c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		problem.Abort(c, problem.Errorf(problem.EMETHOD, "method %s is not allowed here", c.Request.Method))
	})
	return e
}

// OpenAPI serves a program's OpenAPI document (conventionally at
// /openapi.json, without a token), cacheable for five minutes.
func OpenAPI(doc []byte) gin.HandlerFunc {
	return func(c *gin.Context) {
		c.Header("Cache-Control", "public, max-age=300")
		c.Data(http.StatusOK, "application/json", doc)
	}
}
