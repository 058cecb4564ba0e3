package http

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/municipal-apis/platform/pkg/auth"
	"github.com/municipal-apis/platform/pkg/problem"
	"github.com/municipal-apis/platform/pkg/server"
	"github.com/municipal-apis/platform/services/search-admin/internal/catalog"
)

// listResponse is the envelope of a list (docs/decisions.md#search-catalog).
type listResponse struct {
	Data []catalog.Servico `json:"data"`
	Meta listMeta          `json:"meta"`
}

type listMeta struct {
	Page    int   `json:"page"`
	PerPage int   `json:"per_page"`
	Total   int64 `json:"total"`
}

func (h *handler) create(c *gin.Context) {
	var in catalog.Input
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v, catalog.ReadOnlyMembers...); err != nil {
		problem.Abort(c, err)
		return
	}
	claims, _ := auth.ClaimsFrom(c.Request.Context())
	sv, err := h.svc.Create(c.Request.Context(), in, &v, claims.DisplayName())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Location", server.PublicPath(c.Request, ServicesPath+"/"+sv.ID))
	c.JSON(http.StatusCreated, sv)
}

func (h *handler) replace(c *gin.Context) {
	var in catalog.Input
	var v problem.Violations
	if err := problem.DecodeJSON(c.Request, &in, &v, catalog.ReadOnlyMembers...); err != nil {
		problem.Abort(c, err)
		return
	}
	sv, err := h.svc.Replace(c.Request.Context(), c.Param("id"), in, &v)
	respond(c, sv, err)
}

func (h *handler) get(c *gin.Context) {
	sv, err := h.svc.Get(c.Request.Context(), c.Param("id"))
	respond(c, sv, err)
}

func (h *handler) list(c *gin.Context) {
	f, err := parseFilter(c.Request.URL.Query())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	page, err := h.svc.List(c.Request.Context(), f)
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, listResponse{Data: page.Data, Meta: listMeta{Page: f.Page, PerPage: f.PerPage, Total: page.Total}})
}

func (h *handler) delete(c *gin.Context) {
	if err := h.svc.Delete(c.Request.Context(), c.Param("id")); err != nil {
		problem.Abort(c, err)
		return
	}
	c.Status(http.StatusNoContent)
}

// setStatus sets the status its route names (the route refuses a body).
func (h *handler) setStatus(status int) gin.HandlerFunc {
	return func(c *gin.Context) {
		sv, err := h.svc.SetStatus(c.Request.Context(), c.Param("id"), status)
		respond(c, sv, err)
	}
}

func (h *handler) schemas(c *gin.Context) {
	report, err := h.svc.Schemas(c.Request.Context())
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.Header("Cache-Control", "no-store")
	c.JSON(http.StatusOK, report)
}

// respond writes sv with 200, or err as a problem.
func respond(c *gin.Context, sv *catalog.Servico, err error) {
	if err != nil {
		problem.Abort(c, err)
		return
	}
	c.JSON(http.StatusOK, sv)
}
