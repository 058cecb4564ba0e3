package http

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
)

// search answers GET /api/v1/search. Agent-only entries need
// include_agent_only=true and the search:services:read scope besides search:read.
func (h *handler) search(c *gin.Context) {
	q, err := parseSearch(c.Request.URL.Query())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	if q.Filter.IncludeAgentOnly {
		if err := auth.CheckScope(c.Request.Context(), ScopeServicesRead); err != nil {
			problem.Abort(c, err)
			return
		}
	}
	res, err := h.searcher.Search(c.Request.Context(), q)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, res)
}
