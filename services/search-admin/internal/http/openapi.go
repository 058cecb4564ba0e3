package http

import (
	_ "embed"
	"net/http"

	"github.com/gin-gonic/gin"
)

// OpenAPI is the OpenAPI 3 description of this service, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

func serveOpenAPI(c *gin.Context) {
	c.Header("Cache-Control", "public, max-age=300")
	c.Data(http.StatusOK, "application/json", OpenAPI)
}
