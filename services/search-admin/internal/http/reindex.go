package http

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// historyResponse is the envelope of the re-index history.
type historyResponse struct {
	Data []catalog.Reindex `json:"data"`
	Meta listMeta          `json:"meta"`
}

// historyParams are the query parameters the history accepts.
var historyParams = map[string]bool{"page": true, "per_page": true}

func (h *handler) startReindex(c *gin.Context) {
	var req catalog.StartRequest
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &req, &v); err != nil {
		problem.Abort(c, err)
		return
	}
	claims, _ := auth.ClaimsFrom(c.Request.Context())
	ri, report, err := h.reindexer.Start(c.Request.Context(), req, &v, claims.DisplayName())
	switch {
	case err != nil:
		problem.Abort(c, err)
	case report != nil:
		c.JSON(http.StatusOK, report)
	default:
		c.Header("Location", server.PublicPath(c.Request, ReindexStatusPath))
		c.JSON(http.StatusAccepted, ri)
	}
}

func (h *handler) reindexStatus(c *gin.Context) {
	st, err := h.reindexer.Status(c.Request.Context())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, st)
}

// rollbackReindex takes no version (its route refuses a body): it goes
// back to the previous one.
func (h *handler) rollbackReindex(c *gin.Context) {
	st, err := h.reindexer.Rollback(c.Request.Context())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, st)
}

func (h *handler) reindexHistory(c *gin.Context) {
	q := c.Request.URL.Query()
	var v problem.Violations
	v.AddUnknownParameters(q, func(name string) bool { return historyParams[name] }, "unknown_field", "is not a parameter of the history")
	p := params{q: q, v: &v}
	page, perPage := p.integer("page", 1, 1), min(p.integer("per_page", defaultPerPage, 1), maxPerPage)
	if page > maxPage {
		v.Addf("page", "out_of_range", "must be at most %d", maxPage)
	}
	if err := v.Err(); err != nil {
		problem.Abort(c, err)
		return
	}
	list, total, err := h.reindexer.History(c.Request.Context(), page, perPage)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, historyResponse{Data: list, Meta: listMeta{Page: page, PerPage: perPage, Total: total}})
}
