package server

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/problem"
)

// NewGin returns a gin engine in release mode that reports its route
// templates to logs and metrics and answers unknown routes and methods with
// problem responses instead of gin's plain-text defaults. Every GET route
// also answers HEAD (a route need not register it; one that does is served
// by its own HEAD handler), and a query string that does not parse (an
// invalid percent-escape, a ";") is a 400 before any handler runs.
func NewGin() *gin.Engine {
	gin.SetMode(gin.ReleaseMode)
	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.ContextWithFallback = true
	e.Use(func(c *gin.Context) {
		SetRoute(c.Request, c.FullPath())
		if err := checkQuery(c.Request.URL.RawQuery); err != nil {
			problem.Abort(c, err)
			return
		}
		c.Next()
	})
	e.NoRoute(func(c *gin.Context) {
		problem.Abort(c, problem.Errorf(problem.ENOTFOUND, "no resource at %s", c.Request.URL.Path))
	})
	e.NoMethod(func(c *gin.Context) {
		allow := c.Writer.Header().Get("Allow")
		methods := strings.Split(allow, ", ")
		if slices.Contains(methods, http.MethodGet) && !slices.Contains(methods, http.MethodHead) {
			if c.Request.Method == http.MethodHead {
				headAsGet(e, c)
				return
			}
			c.Writer.Header().Set("Allow", allow+", "+http.MethodHead)
		}
		// A HEAD is refused as its GET is, in the same words: its
		// Content-Length must be the length of the GET's body (RFC 9110, 8.6).
		method := c.Request.Method
		if method == http.MethodHead {
			method = http.MethodGet
		}
		problem.Abort(c, problem.Errorf(problem.EMETHOD, "method %s is not allowed here", method))
	})
	return e
}

// headAsGet answers a HEAD request as its GET route would, without the body
// (RFC 9110, section 9.3.2: every general-purpose server supports HEAD
// wherever it supports GET). The GET runs on a copy of the request: the
// server that owns the original still sees HEAD and drops the body, and the
// route's token and scope checks apply as they do to a GET.
func headAsGet(e *gin.Engine, c *gin.Context) {
	c.Writer.Header().Del("Allow")
	get := c.Request.Clone(c.Request.Context())
	get.Method = http.MethodGet
	c.Request = get
	e.HandleContext(c)
}

// checkQuery refuses, with a 400, a query string that does not parse: an
// invalid percent-escape ("%zz") or a ";". url.Values drops such a pair
// without a word, so "?nivel=%zz" was a list without its filter (every row)
// and "?page=1;per_page=5" the default page, past the services' checks that
// a typo in a filter never returns everything. Only a query holding a "%"
// or a ";" can fail, so only such a query is parsed here.
func checkQuery(raw string) error {
	if !strings.ContainsAny(raw, "%;") {
		return nil
	}
	if _, err := url.ParseQuery(raw); err != nil {
		return problem.Wrap(problem.EMALFORMED, err, "the query string does not parse: "+err.Error())
	}
	return nil
}

// RefuseQuery answers 422 to a request of an operation that takes no query
// parameter but was given one, each named under code (docs/decisions.md:
// unknown query parameters are a 422): "?dry_run=true" on an operation
// that does not read it must not look accepted. A route without parameters
// puts it before its handler; a list reads its own and refuses the rest.
func RefuseQuery(code string) gin.HandlerFunc {
	return func(c *gin.Context) {
		if c.Request.URL.RawQuery == "" {
			return
		}
		var v problem.Violations
		v.AddUnknownParameters(c.Request.URL.Query(), func(string) bool { return false }, code, "is not a parameter of this operation")
		if err := v.Err(); err != nil {
			problem.Abort(c, err)
		}
	}
}

// RefuseBody checks the body of an operation that takes none
// (problem.DecodeNone): none, a blank one or {} passes, a member is a 422
// "unknown_field" and anything else a 400, 413 or 415. A DELETE that
// ignored its body deleted whatever the body said, and a GET whose
// filters were sent as JSON answered as if they applied.
func RefuseBody(c *gin.Context) {
	if err := problem.DecodeNone(c.Request); err != nil {
		problem.Abort(c, err)
	}
}

// OpenAPI serves a program's OpenAPI document (conventionally at
// /openapi.json, without a token), cacheable for five minutes, and honours
// the conditional headers as the API does (Preconditions).
func OpenAPI(doc []byte) gin.HandlerFunc {
	return func(c *gin.Context) {
		if !preconditions(c) {
			return
		}
		c.Header("Cache-Control", "public, max-age=300")
		c.Data(http.StatusOK, "application/json", doc)
	}
}
